package dev.provbench.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;

/** {@code provbench}: the top command; a subcommand is required ({@link Main} runs it). */
@Command(name = "provbench", mixinStandardHelpOptions = true, versionProvider = ProvbenchCommand.Version.class,
        description = "Mock CSI driver and PVC create/delete throughput tester for csi-provisioner.")
public class ProvbenchCommand {
    /**
     * The subcommands, in the order help lists them; added by {@link CommandLineSetup#configure} (all of them, or
     * only the one being run, so a command's parse does not build the others' models).
     */
    static final java.util.Map<String, Class<?>> SUBCOMMANDS = new java.util.LinkedHashMap<>();

    static {
        SUBCOMMANDS.put("driver", DriverCommand.class);
        SUBCOMMANDS.put("run", RunCommand.class);
        SUBCOMMANDS.put("serve", ServeCommand.class);
        SUBCOMMANDS.put("cleanup", CleanupCommand.class);
        SUBCOMMANDS.put("compare", CompareCommand.class);
        SUBCOMMANDS.put("sweep", SweepCommand.class);
    }

    static final class Version implements IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[]{"provbench " + dev.provbench.util.BuildVersion.get()};
        }
    }
}
