package dev.provbench.api;

import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;

/**
 * Every scrape gets the text format, the one promtool lints: a plain one (Quarkus alone would answer it with
 * OpenMetrics) as Prometheus' (whose Accept names text/plain, which Quarkus' handler answers with text).
 */
@QuarkusTest
class MetricsFormatTest {
    @Test
    void plainScrapesGetTheTextFormatAsPrometheusDoes() {
        given().get("/q/metrics").then().statusCode(200).contentType(startsWith("text/plain"))
                .body(containsString("_total counter\n"), not(containsString("# EOF")));
        given().header("Accept", "*/*").get("/q/metrics").then().statusCode(200)
                .contentType(startsWith("text/plain"));
        // what Prometheus sends
        given().header("Accept", "application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
                + "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1").get("/q/metrics").then()
                .statusCode(200).contentType(startsWith("text/plain"));
    }

    /**
     * The process series a run reads from this page when it measures a peer (evidence.MetricsScrape: CPU, RSS and
     * the start time that tells a restart), and none of the JVM, Vert.x or Netty binders' series, which nothing
     * reads and which cost every role its classes (application.properties).
     */
    @Test
    void thePageCarriesTheProcessSeriesARunReadsAndNoBinderSeries() {
        given().get("/q/metrics").then().statusCode(200)
                .body(containsString("\nprocess_cpu_seconds_total "),
                        containsString("\nprocess_resident_memory_bytes "),
                        containsString("\nprocess_start_time_seconds "), not(containsString("jvm_memory_used_bytes")),
                        not(containsString("\nvertx_")), not(containsString("\nnetty_")));
    }
}
