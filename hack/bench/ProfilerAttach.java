import com.sun.tools.attach.VirtualMachine;

/**
 * Loads a JVMTI agent library into a running JVM with its options, through the JDK's attach API: how
 * hack/bench/tool-cost starts and stops async-profiler for a run's steady part only (jcmd's JVMTI.agent_load
 * splits the options at their commas). Benchmarks only.
 *
 * <pre>java hack/bench/ProfilerAttach.java PID LIBRARY OPTIONS</pre>
 */
public class ProfilerAttach {
    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: ProfilerAttach PID LIBRARY OPTIONS");
            System.exit(2);
        }
        VirtualMachine vm = VirtualMachine.attach(args[0]);
        try {
            vm.loadAgentPath(args[1], args[2]);
        } finally {
            vm.detach();
        }
    }
}
