package dev.provbench;

import io.restassured.RestAssured;
import io.restassured.builder.RequestSpecBuilder;

/** The test profile's API token ({@code %test.provbench.api.token}) on every rest-assured request, or none. */
public final class TestAuth {
    public static final String TOKEN = "test-token";

    private TestAuth() {
    }

    public static void bearer() {
        RestAssured.requestSpecification = new RequestSpecBuilder()
                .addHeader("Authorization", "Bearer " + TOKEN).build();
    }

    public static void none() {
        RestAssured.requestSpecification = null;
    }
}
