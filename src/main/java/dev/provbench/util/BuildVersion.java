package dev.provbench.util;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The version from the build (a filtered resource), readable before configuration or Quarkus start. */
public final class BuildVersion {
    private static final String VERSION = read();

    private BuildVersion() {
    }

    public static String get() {
        return VERSION;
    }

    private static String read() {
        try (InputStream in = BuildVersion.class.getResourceAsStream("/provbench-version.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("version", "dev");
        } catch (IOException e) {
            return "dev";
        }
    }
}
