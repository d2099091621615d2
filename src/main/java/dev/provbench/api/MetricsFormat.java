package dev.provbench.api;

import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * {@code /q/metrics} in the Prometheus text format (0.0.4) for a plain scrape too. Quarkus' handler answers text
 * when the Accept header names {@code text/plain} (Prometheus' does) and OpenMetrics otherwise — to a plain
 * {@code curl}, or {@code curl … | promtool check metrics} as promtool documents it, whose linter, reading that
 * as the text format, finds no help text for every counter's {@code _total} samples. A request naming only
 * OpenMetrics is left as it is.
 */
@ApplicationScoped
class MetricsFormat {
    void route(@Observes Router router) {
        router.route("/q/metrics").order(-100).handler(rc -> {
            String accept = rc.request().getHeader("Accept");
            if (accept == null || !accept.contains("application/openmetrics-text") && !accept.contains("text/plain")) {
                rc.request().headers().set("Accept", "text/plain; version=0.0.4");
            }
            rc.next();
        });
    }
}
