package dev.provbench.csi;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EndpointTest {
    @Test
    void unixForms() {
        assertEquals(new Endpoint.Unix(Path.of("/csi/csi.sock")), Endpoint.parse("unix:///csi/csi.sock"));
        assertEquals(new Endpoint.Unix(Path.of("/csi/csi.sock")), Endpoint.parse("unix:/csi/csi.sock"));
        assertEquals(new Endpoint.Unix(Path.of("/tmp/x.sock")), Endpoint.parse("/tmp/x.sock"));
        assertEquals(new Endpoint.Unix(Path.of("rel/x.sock")), Endpoint.parse("unix://rel/x.sock"));
        assertEquals("unix:///csi/csi.sock", Endpoint.parse("/csi/csi.sock").toString());
    }

    @Test
    void tcpForms() {
        assertEquals(new Endpoint.Tcp("127.0.0.1", 10000), Endpoint.parse("tcp://127.0.0.1:10000"));
        assertEquals(new Endpoint.Tcp("::1", 9), Endpoint.parse("tcp://[::1]:9"));
    }

    @Test
    void rejectsWhatCannotWork() {
        for (String bad : new String[]{"", "  ", "unix://", "tcp://host", "tcp://host:", "tcp://:80",
                "tcp://h:http", "tcp://h:70000", "http://x", "/" + "a".repeat(120)}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Endpoint.parse(bad),
                    bad);
            assertTrue(!e.getMessage().isEmpty());
        }
    }

    @Test
    void socketModesAreOctalWithoutSpecialBits() {
        assertEquals("rw-rw----", java.nio.file.attribute.PosixFilePermissions.toString(CsiServer.socketMode("0660")));
        assertEquals("rwxr-x---", java.nio.file.attribute.PosixFilePermissions.toString(CsiServer.socketMode("750")));
        for (String bad : new String[]{"4755", "0888", "rw-rw----", "", "66"}) {
            org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    () -> CsiServer.socketMode(bad), bad);
        }
    }
}
