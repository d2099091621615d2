package dev.provbench.cli;

import dev.provbench.api.ApiAccess;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --no-auth} off loopback is refused before anything is served (a launch would have to bind a
 * non-loopback address to show it, which tests do not do), and on loopback it opens the API.
 */
class ApiAccessOptionsTest {

    private static CommandSpec spec() {
        return new CommandLine(CommandSpec.create().name("serve")).getCommandSpec();
    }

    @Test
    void noAuthIsRefusedOnEveryNonLoopbackAddressAndTheAccessStaysClosed() {
        for (String host : new String[]{"0.0.0.0", "::", "192.0.2.2"}) {
            ApiAccessOptions o = new ApiAccessOptions();
            o.noAuth = true;
            ApiAccess access = new ApiAccess(Optional.of("secret"));
            ParameterException e = assertThrows(ParameterException.class, () -> o.apply(spec(), access, host, 8080));
            assertTrue(e.getMessage().contains("--no-auth") && e.getMessage().contains(host), e.getMessage());
            assertTrue(access.required(), "still closed after the refusal on " + host);
            assertFalse(access.accepts(null), host);
        }
    }

    @Test
    void noAuthOnLoopbackOpensTheApi() {
        ApiAccessOptions o = new ApiAccessOptions();
        o.noAuth = true;
        ApiAccess access = new ApiAccess(Optional.of("secret"));
        o.apply(spec(), access, "127.0.0.1", 8080);
        assertFalse(access.required());
    }
}
