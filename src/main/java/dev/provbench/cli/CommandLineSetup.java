package dev.provbench.cli;

import dev.provbench.sweep.SweepRequest;
import io.quarkus.arc.Arc;
import io.quarkus.arc.InstanceHandle;
import io.quarkus.runtime.annotations.CommandLineArguments;
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
    /**
     * Only the subcommand being run is built (as in {@link Main}'s parse before Quarkus): the factory creates each
     * command it adds as a bean, with its services, so the full model made every role build every command's —
     * {@code run} made the driver's {@code CsiServer} (its gRPC services, protobuf and the CSI messages: with
     * {@code RunExecutor}'s part, 595 classes it never used) and the other commands' services (docs/benchmarks.md,
     * "The commands a role never runs").
     */
    @Produces
    CommandLine commandLine(@CommandLineArguments String[] args) {
        return configure(new BeanFactory(), commandOf(args));
    }

    /** The subcommand the arguments name first (null when none: {@link #configure} then adds every command). */
    static String commandOf(String[] args) {
        return args != null && args.length > 0 ? args[0] : null;
    }

    /**
     * The same model for the parse before Quarkus ({@link Main}) and for the run with beans: the top command with
     * every subcommand, or only {@code only} when it names one.
     */
    static CommandLine configure(CommandLine.IFactory factory, String only) {
        CommandLine cl = new CommandLine(ProvbenchCommand.class, factory);
        ProvbenchCommand.SUBCOMMANDS.forEach((name, cls) -> {
            if (only == null || !ProvbenchCommand.SUBCOMMANDS.containsKey(only) || only.equals(name)) {
                cl.addSubcommand(name, new CommandLine(cls, factory));
            }
        });
        CommandLine sweep = cl.getSubcommands().get("sweep");
        if (sweep != null) {
            addRunOptions(sweep);
        }
        return cl.setCaseInsensitiveEnumValuesAllowed(true);
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

    /** Commands, mixins and providers as CDI beans where they are beans (the commands are), else plain objects. */
    static final class BeanFactory implements CommandLine.IFactory {
        @Override
        public <K> K create(Class<K> cls) throws Exception {
            InstanceHandle<K> h = Arc.container().instance(cls);
            return h.isAvailable() ? h.get() : CommandLine.defaultFactory().create(cls);
        }
    }
}
