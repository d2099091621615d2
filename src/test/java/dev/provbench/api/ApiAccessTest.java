package dev.provbench.api;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ApiAccessTest {

    @Test
    void withoutAConfiguredTokenOneIsGeneratedAndRequired(@TempDir Path dir) throws Exception {
        ApiAccess a = new ApiAccess(Optional.empty());
        ApiAccess b = new ApiAccess(Optional.of("  "));
        assertTrue(a.generated());
        assertTrue(b.generated());
        assertTrue(a.required());
        assertTrue(a.token().length() >= 43, "256 random bits");
        assertNotEquals(a.token(), b.token());
        assertTrue(a.accepts("Bearer " + a.token()));
        assertTrue(a.accepts("bearer " + a.token()));
        assertFalse(a.accepts("Bearer " + b.token()));
        assertFalse(a.accepts(null));
        assertFalse(a.accepts(a.token()));
        Path file = a.writeTo(dir.resolve("sub/token"));
        assertEquals(a.token() + "\n", Files.readString(file));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertTrue(a.url("127.0.0.1", 8080).equals("http://127.0.0.1:8080/?token=" + a.token()));
    }

    @Test
    void aConfiguredTokenIsUsedAsIs() {
        ApiAccess a = new ApiAccess(Optional.of("s3cret"));
        assertFalse(a.generated());
        assertTrue(a.accepts("Bearer s3cret"));
        assertFalse(a.accepts("Bearer s3cre"));
        a.open();
        assertFalse(a.required());
    }
}
