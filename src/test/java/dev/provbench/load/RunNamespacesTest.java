package dev.provbench.load;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RunNamespacesTest {
    @Test
    void oneIsTheNamespaceItself() {
        RunNamespaces one = new RunNamespaces("load", 1);
        assertEquals(List.of("load"), one.names());
        assertEquals("load", one.of(7));
        assertEquals("load", one.ofClaim("pb-abc-7"));
        assertTrue(one.contains("load"));
        assertFalse(one.contains("load-0"));
        assertEquals("--namespace load", one.flags());
    }

    @Test
    void claimsGoRoundRobinAndTheirNamespaceFollowsFromTheName() {
        RunNamespaces three = new RunNamespaces("load", 3);
        assertEquals(List.of("load-0", "load-1", "load-2"), three.names());
        assertEquals("load-1", three.of(1));
        assertEquals("load-0", three.of(3));
        assertEquals("load-2", three.ofClaim("pb-abc-5"));
        assertEquals(2, three.indexOfClaim("pb-abc-5"));
        assertEquals("load-0", three.ofClaim("pbpop-5"), "not a run's claim name: the first");
        assertEquals("load-0", three.ofClaim("pb-abc-99999999999999999999999"), "more digits than a long");
        assertTrue(three.contains("load-2"));
        assertFalse(three.contains("load"), "the base holds the population, not the run's claims");
        assertFalse(three.contains(null));
        assertEquals("--namespace load --namespaces 3", three.flags());
        assertEquals("load-0 … load-2", three.toString());
    }

    @Test
    void boundsAndNameLength() {
        assertThrows(IllegalArgumentException.class, () -> new RunNamespaces("load", 0));
        assertThrows(IllegalArgumentException.class, () -> new RunNamespaces("load", RunNamespaces.MAX + 1));
        String sixty = "a".repeat(60);
        assertTrue(RunNamespaces.fits(sixty + "bcd", 1));
        assertTrue(RunNamespaces.fits(sixty + "b", 10), "<60+1>-9: 63 characters");
        assertFalse(RunNamespaces.fits(sixty + "b", 11), "<61>-10: 64 characters");
    }
}
