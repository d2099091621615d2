package dev.provbench.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The command line Quarkus runs builds only the command being run: its factory makes each command with its beans. */
class CommandLineSetupTest {
    /** The commands a factory was asked to make (the mixins and the top command as well). */
    private static List<Class<?>> made(String... args) {
        List<Class<?>> made = new ArrayList<>();
        CommandLine.IFactory parseOnly = new Main.ParseOnlyFactory();
        CommandLine.IFactory recording = new CommandLine.IFactory() {
            public <K> K create(Class<K> cls) throws Exception {
                made.add(cls);
                return parseOnly.create(cls);
            }
        };
        CommandLineSetup.configure(recording, CommandLineSetup.commandOf(args));
        return made;
    }

    @Test
    void runMakesNoOtherCommandAndSoNoDriver() {
        List<Class<?>> made = made("run", "--local");
        assertTrue(made.contains(RunCommand.class), made.toString());
        for (Class<?> other : Set.of(DriverCommand.class, ServeCommand.class, SweepCommand.class, CleanupCommand.class,
                CompareCommand.class)) {
            assertFalse(made.contains(other), other + " made for run: " + made);
        }
    }

    @Test
    void driverMakesOnlyTheDriverCommand() {
        List<Class<?>> made = made("driver", "--endpoint", "unix:///tmp/x.sock");
        assertTrue(made.contains(DriverCommand.class), made.toString());
        assertFalse(made.contains(RunCommand.class) || made.contains(ServeCommand.class), made.toString());
    }

    @Test
    void noCommandOrAnUnknownOneGetsEveryCommandForItsUsage() {
        for (String[] args : List.of(new String[0], new String[]{"--help"}, new String[]{"nosuch"})) {
            List<Class<?>> made = made(args);
            assertTrue(made.containsAll(ProvbenchCommand.SUBCOMMANDS.values()), String.join(" ", args) + ": " + made);
        }
        assertEquals(null, CommandLineSetup.commandOf(null));
    }
}
