package dev.provbench.util;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A configuration mapping read as Quarkus will read it — system properties, the environment, the jar's
 * {@code application.properties} and {@code config/application.properties} — before Quarkus starts (the parse in
 * {@code cli.Main}, the early driver). The one place that lists those sources.
 */
public final class EarlyConfig {
    private EarlyConfig() {
    }

    public static <T> T mapping(Class<T> type) {
        SmallRyeConfigBuilder b = new SmallRyeConfigBuilder().addDefaultSources().addDefaultInterceptors()
                .withMapping(type);
        try {
            var inJar = EarlyConfig.class.getResource("/application.properties");
            if (inJar != null) {
                b.withSources(new PropertiesConfigSource(inJar, 250));
            }
            Path file = Path.of("config", "application.properties");
            if (Files.isReadable(file)) {
                b.withSources(new PropertiesConfigSource(file.toUri().toURL(), 260));
            }
        } catch (IOException e) {
            // no content of the file in the message: only which one
            throw new IllegalArgumentException("cannot read application.properties (" + e.getClass().getSimpleName()
                    + ")");
        }
        return b.build().getConfigMapping(type);
    }
}
