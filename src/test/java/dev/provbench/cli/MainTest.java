package dev.provbench.cli;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The parse before Quarkus starts ({@link Main}): plain unit tests, no application is started. */
class MainTest {
    private final StringWriter out = new StringWriter(), err = new StringWriter();

    private Main.Early parse(String... args) {
        return Main.parseEarly(args, new PrintWriter(out), new PrintWriter(err));
    }

    @Test
    void helpAndVersionPrintAndExitZero() {
        assertEquals(0, parse("run", "--help").exitCode());
        assertTrue(out.toString().contains("--http-port"), out.toString());
        assertTrue(out.toString().contains("--qps"), out.toString());
        out.getBuffer().setLength(0);
        assertEquals(0, parse("--version").exitCode());
        assertTrue(out.toString().startsWith("provbench "), out.toString());
        assertEquals(0, parse("--help").exitCode());
        assertTrue(out.toString().contains("sweep"), "the top help lists every command");
        assertEquals("", err.toString());
    }

    @Test
    void usageErrorsAreExitTwoNamingTheFlag() {
        assertEquals(2, parse("run", "--bogus").exitCode());
        assertTrue(err.toString().contains("--bogus"), err.toString());
        err.getBuffer().setLength(0);
        assertEquals(2, parse("run", "--local", "--threads", "0").exitCode());
        assertTrue(err.toString().contains("--threads"), err.toString());
        err.getBuffer().setLength(0);
        assertEquals(2, parse("run", "--local", "--http-port", "70000").exitCode());
        assertTrue(err.toString().contains("--http-port"), err.toString());
        err.getBuffer().setLength(0);
        assertEquals(2, parse("sweep", "--local", "--qps", "5,x", "--out", "/tmp/x").exitCode());
        assertTrue(err.toString().contains("--qps"), err.toString());
        err.getBuffer().setLength(0);
        assertEquals(2, parse().exitCode());
        assertTrue(err.toString().contains("Missing required subcommand"), err.toString());
        assertEquals("", out.toString());
    }

    @Test
    void aValidCommandLineGoesOnToQuarkus() {
        Main.Early e = parse("run", "--local", "--http-port", "0");
        assertNull(e.exitCode());
        assertEquals("run", e.command());
        assertEquals(0, e.httpPort());
        e = parse("compare", "a.json", "b.json");
        assertNull(e.exitCode());
        assertEquals("compare", e.command());
        assertNull(e.httpPort());
        assertEquals("", out.toString() + err.toString());
    }

    @Test
    void httpSettingsPerCommand() throws Exception {
        assertEquals(Map.of("quarkus.http.host-enabled", "false"), Main.httpSettings("compare", null, Map.of(), k -> null));
        assertEquals(Map.of("quarkus.http.host-enabled", "false"), Main.httpSettings("cleanup", null, Map.of(), k -> null));
        assertEquals(Map.of(), Main.httpSettings("driver", null, Map.of(), k -> null), "the driver keeps its configured port");
        assertEquals(Map.of(), Main.httpSettings("serve", null, Map.of(), k -> null));
        assertEquals(Map.of("quarkus.http.port", "0"), Main.httpSettings("run", 0, Map.of(), k -> null));
        assertEquals(Map.of("quarkus.http.port", "9999"), Main.httpSettings("sweep", 9999, Map.of(), k -> null));
        assertEquals(Map.of(), Main.httpSettings("run", null, Map.of("QUARKUS_HTTP_PORT", "8181"), k -> null),
                "an explicit configuration wins");
        try (ServerSocket held = new ServerSocket()) {
            held.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            int port = held.getLocalPort();
            assertFalse(Main.free("127.0.0.1", port), "a held port is not free");
        }
        if (Main.free("127.0.0.1", Main.DEFAULT_PORT)) {
            assertEquals(Map.of("quarkus.http.port", "8080"), Main.httpSettings("run", null, Map.of(), k -> null));
            try (ServerSocket held = new ServerSocket()) {
                held.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), Main.DEFAULT_PORT));
                assertEquals(Map.of("quarkus.http.port", "0"), Main.httpSettings("run", null, Map.of(), k -> null),
                        "8080 taken: any free port");
            }
        }
    }
}
