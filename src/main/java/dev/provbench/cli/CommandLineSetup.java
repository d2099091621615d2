package dev.provbench.cli;

import io.quarkus.picocli.runtime.PicocliCommandLineFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import picocli.CommandLine;

/** The command line as Quarkus builds it, plus: enum values are accepted in any case ({@code --format json}). */
@ApplicationScoped
class CommandLineSetup {
    @Produces
    CommandLine commandLine(PicocliCommandLineFactory factory) {
        return factory.create().setCaseInsensitiveEnumValuesAllowed(true);
    }
}
