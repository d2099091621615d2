package dev.provbench.csi;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class CallLogTest {

    @Test
    void pagesOnAndSaysWhatItOverwrote() {
        CallLog log = new CallLog();
        for (int i = 1; i <= 5; i++) {
            log.add("CreateVolume", "pvc-" + i, "v" + i, i * 10, i * 10 + 1, "OK", false);
        }
        CallLog.Page p = log.after(0, 3);
        assertEquals(3, p.calls().size());
        assertEquals("pvc-1", p.calls().get(0).name());
        assertEquals(3, p.next());
        p = log.after(p.next(), 100);
        assertEquals(2, p.calls().size());
        assertEquals(5, p.next());
        assertEquals(0, log.after(5, 100).calls().size());
        // a reader that fell behind by more than the ring holds learns how many it missed
        for (int i = 0; i < CallLog.CAPACITY + 10; i++) {
            log.add("DeleteVolume", "v", null, 1, 2, "OK", false);
        }
        p = log.after(5, 10);
        assertEquals(10, p.missed());
        assertEquals(16, p.calls().get(0).seq());
        // a sequence beyond the newest (the driver restarted): from the oldest kept
        p = log.after(Long.MAX_VALUE / 4, 1);
        assertEquals(16, p.calls().get(0).seq());
    }
}
