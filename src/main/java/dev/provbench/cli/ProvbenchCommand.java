package dev.provbench.cli;

import io.quarkus.picocli.runtime.annotations.TopCommand;
import org.eclipse.microprofile.config.ConfigProvider;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;

/** {@code provbench}: the top command; a subcommand is required. */
@TopCommand
@Command(name = "provbench", mixinStandardHelpOptions = true, versionProvider = ProvbenchCommand.Version.class,
        description = "Mock CSI driver and PVC create/delete throughput tester for csi-provisioner.",
        subcommands = {DriverCommand.class, RunCommand.class, ServeCommand.class, CleanupCommand.class,
                CompareCommand.class, SweepCommand.class})
public class ProvbenchCommand {

    static final class Version implements IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[]{"provbench " + ConfigProvider.getConfig()
                    .getOptionalValue("quarkus.application.version", String.class).orElse("dev")};
        }
    }
}
