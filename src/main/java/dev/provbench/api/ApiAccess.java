package dev.provbench.api;

import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;

/**
 * Who may call the HTTP API: the holder of one bearer token. It is {@code provbench.api.token}
 * (PROVBENCH_API_TOKEN) when configured, else a random one made at start — so anything that listens
 * authenticates unless the user opts out ({@code --no-auth}, which {@link #open()} records).
 */
@ApplicationScoped
public class ApiAccess {
    /** The header every protected call needs. */
    public static final String HEADER = "Authorization: Bearer <token>";

    private final byte[] token;
    private final String text;
    private final boolean generated;
    private volatile boolean required = true;

    public ApiAccess(@ConfigProperty(name = "provbench.api.token") Optional<String> configured) {
        Optional<String> t = configured.map(String::trim).filter(s -> !s.isEmpty());
        this.generated = t.isEmpty();
        byte[] random = new byte[32];
        new SecureRandom().nextBytes(random);
        this.text = t.orElseGet(() -> Base64.getUrlEncoder().withoutPadding().encodeToString(random));
        this.token = text.getBytes(StandardCharsets.UTF_8);
    }

    /** The token was made at start (none configured): it must be shown to the user once. */
    public boolean generated() {
        return generated;
    }

    /** {@code --no-auth}: no token is asked for (the HTTP server must then be on loopback). */
    public void open() {
        required = false;
    }

    /** Back to requiring the token (for tests: {@code --no-auth} holds for the life of the process). */
    public void require() {
        required = true;
    }

    public boolean required() {
        return required;
    }

    /** Whether an Authorization header value carries the token (constant time). */
    public boolean accepts(String authorization) {
        return authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)
                && MessageDigest.isEqual(token, authorization.substring(7).trim().getBytes(StandardCharsets.UTF_8));
    }

    /** For the one log line that shows a generated token, and for the token file. */
    String token() {
        return text;
    }

    /** Writes the token to {@code file}, readable by this user only; returns the file. */
    public Path writeTo(Path file) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.deleteIfExists(file);
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(file, text + "\n", StandardOpenOption.TRUNCATE_EXISTING);
        file.toFile().deleteOnExit();
        return file;
    }

    /** The live page's address with the token, shown once at start (as Jupyter does). */
    public String url(String host, int port) {
        return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port + "/?token=" + text;
    }
}
