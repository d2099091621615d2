package dev.provbench.evidence;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.provbench.csi.CallLog;

import java.net.InetAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Where a run reads when the driver received and answered each CreateVolume and DeleteVolume ({@link CallLog}):
 * the driver in this process, or a {@code provbench driver}/{@code serve} over {@code GET /driver/calls} with the
 * driver's token. {@link #sameClock()} says whether the driver's times come from this process's clock.
 */
public interface DriverCallSource {
    CallLog.Page read(long after, int limit) throws Exception;

    /** Where the calls come from, for the report. */
    String source();

    /** True when the driver's clock is this process's (in-process) or this machine's (a loopback URL). */
    boolean sameClock();

    static DriverCallSource inProcess(CallLog log) {
        return new DriverCallSource() {
            public CallLog.Page read(long after, int limit) {
                return log.after(after, limit);
            }

            public String source() {
                return "the driver in this process";
            }

            public boolean sameClock() {
                return true;
            }
        };
    }

    /**
     * Over HTTP; the token is read from {@code tokenFile} when given (PROVBENCH_DRIVER_TOKEN_FILE, which
     * {@code hack/local-cluster env} exports), else {@code token} (provbench.api.token).
     */
    static DriverCallSource http(HttpGet http, URI base, Path tokenFile, Optional<String> token) {
        return new Http(http, base, tokenFile, token);
    }

    final class Http implements DriverCallSource {
        /** A page of 10,000 calls is ~2 MB of JSON. */
        static final int MAX_BYTES = 4 << 20;
        private static final ObjectMapper JSON = new ObjectMapper();
        private final URI calls;
        private final Path tokenFile;
        private final Optional<String> token;
        private final boolean loopback;
        private final HttpGet http;

        Http(HttpGet http, URI base, Path tokenFile, Optional<String> token) {
            this.http = http;
            String b = base.toString();
            this.calls = URI.create((b.endsWith("/") ? b.substring(0, b.length() - 1) : b) + "/driver/calls");
            this.tokenFile = tokenFile;
            this.token = token.map(String::trim).filter(t -> !t.isEmpty());
            boolean lo;
            try {
                lo = InetAddress.getByName(base.getHost()).isLoopbackAddress();
            } catch (Exception e) {
                lo = false;
            }
            this.loopback = lo;
        }

        private Optional<String> token() {
            if (tokenFile != null) {
                try {
                    if (Files.size(tokenFile) > 4096) {
                        throw new IllegalStateException("the driver token file " + tokenFile + " is over 4 KiB");
                    }
                    return Optional.of(Files.readString(tokenFile).trim()).filter(t -> !t.isEmpty());
                } catch (java.io.IOException e) {
                    throw new IllegalStateException("cannot read the driver token file " + tokenFile + ": "
                            + e.getClass().getSimpleName());
                }
            }
            return token;
        }

        @Override
        public CallLog.Page read(long after, int limit) throws Exception {
            URI u = URI.create(calls + "?after=" + after + "&limit=" + limit);
            byte[] body = http.read(u, token(), Duration.ofSeconds(5), MAX_BYTES,
                    "the driver's token: PROVBENCH_DRIVER_TOKEN_FILE or PROVBENCH_API_TOKEN");
            JsonNode root;
            try {
                root = JSON.readTree(body);
            } catch (java.io.IOException e) {
                throw new IllegalStateException("the answer of " + calls + " is not JSON"); // never echo the body
            }
            List<CallLog.Call> out = new ArrayList<>();
            for (JsonNode c : root.path("calls")) {
                out.add(new CallLog.Call(c.path("seq").asLong(), c.path("method").asText(), c.path("name").asText(),
                        c.path("volumeId").isTextual() ? c.path("volumeId").asText() : null,
                        c.path("received").asLong(), c.path("answered").asLong(), c.path("code").asText(),
                        c.path("injected").asBoolean(false)));
            }
            return new CallLog.Page(out, root.path("next").asLong(after), root.path("missed").asLong(0));
        }

        @Override
        public String source() {
            return calls.toString();
        }

        @Override
        public boolean sameClock() {
            return loopback;
        }
    }
}
