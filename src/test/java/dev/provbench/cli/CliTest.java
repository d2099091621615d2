package dev.provbench.cli;

import dev.provbench.run.ExitCodes;
import io.quarkus.test.junit.main.Launch;
import io.quarkus.test.junit.main.LaunchResult;
import io.quarkus.test.junit.main.QuarkusMainLauncher;
import io.quarkus.test.junit.main.QuarkusMainTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@QuarkusMainTest
class CliTest {

    @Test
    @Launch(value = {"driver", "--bogus"}, exitCode = 2)
    void unknownFlagIsUsageErrorNamingIt(LaunchResult result) {
        assertTrue(result.getErrorOutput().contains("--bogus"), result.getErrorOutput());
    }

    @Test
    @Launch(value = {"driver", "--endpoint", "ftp://host/x"}, exitCode = 2)
    void badEndpointIsUsageErrorNamingTheFlag(LaunchResult result) {
        assertTrue(result.getErrorOutput().contains("--endpoint"), result.getErrorOutput());
    }

    @Test
    @Launch(value = {"driver", "--endpoint", "tcp://0.0.0.0:10000"}, exitCode = 2)
    void aRemoteTcpEndpointNeedsAllowRemote(LaunchResult result) {
        assertTrue(result.getErrorOutput().contains("--allow-remote"), result.getErrorOutput());
    }

    @Test
    void serveWithoutDriverNeedsTheDriversUrl(QuarkusMainLauncher launcher) {
        org.junit.jupiter.api.Assumptions.assumeTrue(System.getenv("PROVBENCH_DRIVER_URL") == null);
        LaunchResult result = launcher.launch("serve", "--no-driver");
        assertEquals(ExitCodes.USAGE, result.exitCode(), result.getErrorOutput());
        assertTrue(result.getErrorOutput().contains("PROVBENCH_DRIVER_URL"), result.getErrorOutput());
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource(delimiter = '|', value = {
            "cleanup|--run-id",
            "cleanup --run-id NOT_AN_ID|--run-id",
            "cleanup --all --namespace Bad_NS|--namespace",
            "cleanup --all --timeout 48h|--timeout",
            "cleanup --all --run-id abc|--run-id"})
    void cleanupChecksItsFlagsBeforeAnything(String args, String flag, QuarkusMainLauncher launcher) {
        LaunchResult result = launcher.launch(args.split(" "));
        assertEquals(ExitCodes.USAGE, result.exitCode(), result.getErrorOutput());
        assertTrue(result.getErrorOutput().contains(flag), result.getErrorOutput());
    }

    @Test
    void onlyLoopbackAddressesCountAsLocal() {
        for (String local : new String[]{"127.0.0.1", "127.1.2.3", "::1", "localhost"}) {
            assertTrue(ApiAccessOptions.loopback(local), local);
        }
        for (String remote : new String[]{"0.0.0.0", "::", "192.0.2.2", "10.0.0.1", "no-such-host.invalid"}) {
            assertTrue(!ApiAccessOptions.loopback(remote), remote);
        }
    }

    @Test
    @Launch(value = {}, exitCode = 2)
    void subcommandIsRequired(LaunchResult result) {
        assertTrue(result.getErrorOutput().contains("Missing required subcommand"), result.getErrorOutput());
    }

    @Test
    @Launch(value = {"bogus-command"}, exitCode = 2)
    void unknownSubcommand(LaunchResult result) {
        assertTrue(result.getErrorOutput().contains("bogus-command"), result.getErrorOutput());
    }

    @Test
    @Launch(value = {"--help"})
    void helpListsTheDriver(LaunchResult result) {
        assertTrue(result.getOutput().contains("driver"), result.getOutput());
    }

    @Test
    void refusesToReplaceAFileThatIsNotASocket(QuarkusMainLauncher launcher, @TempDir Path dir) throws Exception {
        Path file = dir.resolve("csi.sock");
        Files.writeString(file, "precious");
        LaunchResult result = launcher.launch("driver", "--endpoint", "unix://" + file);
        assertEquals(ExitCodes.FAILED, result.exitCode());
        assertTrue(result.getErrorOutput().contains("not a socket"), result.getErrorOutput());
        assertEquals("precious", Files.readString(file));
    }
}
