package dev.provbench.cli;

import io.quarkus.arc.Arc;
import io.quarkus.arc.InstanceHandle;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.QuarkusApplication;
import io.quarkus.runtime.annotations.QuarkusMain;
import dev.provbench.run.RunLimits;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.reflect.Constructor;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Map;

/**
 * The entry point. Each command starts only what it needs: the command line is parsed before Quarkus starts, so
 * {@code --help}, {@code --version} and usage errors print without a server, a port or a log line (exit 0 or 2);
 * then the HTTP listener is chosen for the command ({@link #httpSettings}) and Quarkus runs the command with
 * its beans.
 */
@QuarkusMain
public class Main implements QuarkusApplication {

    /** Commands that serve nothing over HTTP: Quarkus starts without a listener for them. */
    static final java.util.Set<String> NO_HTTP = java.util.Set.of("cleanup", "compare");
    /** Commands whose HTTP listener (live page, metrics) is a convenience: another port when 8080 is taken. */
    static final java.util.Set<String> ANY_FREE_PORT = java.util.Set.of("run", "sweep");
    static final int DEFAULT_PORT = 8080;
    /** The class loader of the packaged application (java -jar quarkus-run.jar): only there does main act early. */
    static final String PACKAGED = "io.quarkus.bootstrap.runner.RunnerClassLoader";

    public static void main(String... args) {
        if (!PACKAGED.equals(Main.class.getClassLoader().getClass().getName())
                || Boolean.getBoolean("quarkus.appcds.generate")) {
            // @QuarkusMainTest and dev mode call this too (another class loader): there the same parse runs inside
            // Quarkus, and nothing may exit the JVM (MainTest covers the parse here)
            Quarkus.run(Main.class, args);
            return;
        }
        Early early = parseEarly(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true));
        if (early.exitCode() != null) {
            System.exit(early.exitCode());
        }
        httpSettings(early.command(), early.httpPort(), System.getenv(), System::getProperty)
                .forEach(System::setProperty);
        Quarkus.run(Main.class, args);
    }

    @Override
    public int run(String... args) {
        try (InstanceHandle<CommandLine> cl = Arc.container().instance(CommandLine.class)) {
            CommandLine commandLine = cl.get();
            try {
                return commandLine.execute(args);
            } finally {
                commandLine.getOut().flush();
                commandLine.getErr().flush();
            }
        }
    }

    /**
     * What the parse before Quarkus decided: an exit code when it printed help, the version or a usage error;
     * else the subcommand's name and its {@code --http-port} (null when not given).
     */
    record Early(Integer exitCode, String command, Integer httpPort) {
    }

    /** Parses with the same command model Quarkus will run (no beans: the commands' services are null here). */
    static Early parseEarly(String[] args, PrintWriter out, PrintWriter err) {
        CommandLine cl = CommandLineSetup.configure(new ParseOnlyFactory(), CommandLineSetup.commandOf(args));
        cl.setOut(out).setErr(err);
        String[] command = {null};
        Integer[] httpPort = {null};
        cl.setExecutionStrategy(parseResult -> {
            Integer help = CommandLine.executeHelpRequest(parseResult);
            if (help != null) {
                return help;
            }
            CommandLine last = parseResult.asCommandLineList().get(parseResult.asCommandLineList().size() - 1);
            Object user = last.getCommand();
            if (!(user instanceof Runnable) && !(user instanceof java.util.concurrent.Callable)) {
                throw new CommandLine.ParameterException(last, "Missing required subcommand");
            }
            command[0] = last.getCommandName();
            if (user instanceof EarlyStarted d) {
                int rc = d.startEarly();
                if (rc != 0) {
                    return rc;
                }
            }
            if (user instanceof EarlyChecked o) {
                o.checkEarly(limits());
                httpPort[0] = o.httpPort();
            }
            return -1;
        });
        int code = cl.execute(args);
        out.flush();
        err.flush();
        return code == -1 ? new Early(null, command[0], httpPort[0]) : new Early(code, null, null);
    }

    /**
     * The HTTP settings to set before Quarkus starts, by command: none for {@link #NO_HTTP}'s (no listener at
     * all); for {@link #ANY_FREE_PORT}'s, {@code --http-port} when given (0 = any free port), else 8080 when it
     * is free and any free port when it is taken — unless QUARKUS_HTTP_PORT or -Dquarkus.http.port says
     * otherwise. {@code driver} and {@code serve} keep their configured port: something else relies on it.
     */
    static Map<String, String> httpSettings(String command, Integer httpPort, Map<String, String> env,
                                            java.util.function.UnaryOperator<String> sysprop) {
        if (NO_HTTP.contains(command)) {
            return Map.of("quarkus.http.host-enabled", "false");
        }
        if (!ANY_FREE_PORT.contains(command)) {
            return Map.of();
        }
        if (httpPort != null) {
            return Map.of("quarkus.http.port", Integer.toString(httpPort));
        }
        if (env.containsKey("QUARKUS_HTTP_PORT") || sysprop.apply("quarkus.http.port") != null) {
            return Map.of();
        }
        String host = sysprop.apply("quarkus.http.host") != null ? sysprop.apply("quarkus.http.host")
                : env.getOrDefault("QUARKUS_HTTP_HOST", "127.0.0.1");
        return Map.of("quarkus.http.port", free(host, DEFAULT_PORT) ? Integer.toString(DEFAULT_PORT) : "0");
    }

    static boolean free(String host, int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(InetAddress.getByName(host), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Commands whose flags are checked here already (exit 2 naming the flag, before a server starts), and that
     * have an {@code --http-port} option.
     */
    interface EarlyChecked {
        Integer httpPort();

        void checkEarly(RunLimits.Values limits);
    }

    /** Commands that start serving here, before Quarkus: {@code driver} ({@link DriverCommand#startEarly}). */
    interface EarlyStarted {
        /** 0 when started; else the exit code (a usage error throws picocli's exception: exit 2). */
        int startEarly();
    }

    /**
     * {@code provbench.limits.*} read as Quarkus will (system properties, the environment, {@code
     * config/application.properties}) — without starting Quarkus.
     */
    static RunLimits.Values limits() {
        return dev.provbench.util.EarlyConfig.mapping(RunLimits.class).values();
    }

    /** Prints where this process's live page and metrics are (stderr, once at start). */
    static void announceHttp(PrintWriter err, String who) {
        InstanceHandle<io.quarkus.vertx.http.HttpServer> h = Arc.container().instance(io.quarkus.vertx.http.HttpServer.class);
        if (h.isAvailable() && h.get().getPort() > 0) {
            String host = org.eclipse.microprofile.config.ConfigProvider.getConfig()
                    .getOptionalValue("quarkus.http.host", String.class).orElse("127.0.0.1");
            err.println(who + ": live page http://" + (host.equals("0.0.0.0") ? "127.0.0.1" : host) + ":"
                    + h.get().getPort() + "/ , metrics at /q/metrics");
            err.flush();
        }
    }

    /**
     * Builds each command for parsing only: a command whose constructor takes its services gets nulls; they are
     * never called, since no command runs here.
     */
    static final class ParseOnlyFactory implements CommandLine.IFactory {
        private final CommandLine.IFactory fallback = CommandLine.defaultFactory();

        @Override
        public <K> K create(Class<K> cls) throws Exception {
            Constructor<?>[] constructors = cls.getDeclaredConstructors();
            if (constructors.length == 1 && constructors[0].getParameterCount() > 0) {
                Constructor<?> c = constructors[0];
                c.setAccessible(true);
                Object[] nulls = new Object[c.getParameterCount()];
                for (int i = 0; i < nulls.length; i++) {
                    Class<?> t = c.getParameterTypes()[i];
                    nulls[i] = t == boolean.class ? false : t.isPrimitive() ? 0 : null;
                }
                return cls.cast(c.newInstance(nulls));
            }
            return fallback.create(cls);
        }
    }
}
