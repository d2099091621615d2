package dev.provbench.cli;

import dev.provbench.sweep.SweepRequest;
import io.quarkus.picocli.runtime.PicocliCommandLineFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The command line as Quarkus builds it, plus: enum values are accepted in any case ({@code --format json}); and
 * {@code provbench sweep} gets every option of {@code provbench run} (bound to its request's run options) but the
 * ones its axes replace.
 */
@ApplicationScoped
class CommandLineSetup {
    @Produces
    CommandLine commandLine(PicocliCommandLineFactory factory) {
        CommandLine cl = factory.create().setCaseInsensitiveEnumValuesAllowed(true);
        CommandLine sweep = cl.getSubcommands().get("sweep");
        if (sweep != null) {
            addRunOptions(sweep);
        }
        return cl;
    }

    static void addRunOptions(CommandLine sweep) {
        SweepCommand cmd = sweep.getCommand();
        CommandSpec runOptions = CommandSpec.forAnnotatedObject(cmd.runOptions());
        for (OptionSpec o : runOptions.options()) {
            if (!SweepRequest.REPLACED.contains(o.longestName()) && !o.usageHelp() && !o.versionHelp()) {
                sweep.getCommandSpec().addOption(o);
            }
        }
    }
}
