package dev.tenure.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.boot.app.Events;
import dev.tenure.boot.app.HeldSettlement;
import dev.tenure.boot.app.OpsApp;
import dev.tenure.boot.app.TestApps;
import dev.tenure.testkit.Timing;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Two running Boot web applications on real ports, real Postgres and valkey-server, spoken to over HTTP: instance a
 * with the defaults (the tenure endpoint read-only), instance b with {@code management.endpoint.tenure.access=
 * unrestricted}. While a's settlement holds its job: a's health shows Tenure's component, a's endpoint lists the job
 * with its holder; a refuses the force-release; b's force-release bumps the epoch (audit row), and a's run, resuming,
 * fails its fence and writes nothing.
 */
class ActuatorIT {

    private static final String[] WEB = {
        "management.endpoints.web.exposure.include=health,tenure", "management.endpoint.health.show-details=always"
    };
    private static final String NODE_A = "ops-a/" + ProcessHandle.current().pid();

    static BootServers servers;
    static ConfigurableApplicationContext a;
    static ConfigurableApplicationContext b;
    final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    final JsonMapper json = JsonMapper.builder().build();

    @BeforeAll
    static void start() {
        servers = BootServers.start(ActuatorIT.class);
        a = TestApps.start(OpsApp.class, servers, append(WEB, "tenure.node-name=" + NODE_A));
        b = TestApps.start(OpsApp.class, servers, append(WEB, "management.endpoint.tenure.access=unrestricted"));
    }

    @AfterAll
    static void stop() {
        for (ConfigurableApplicationContext app : new ConfigurableApplicationContext[] {a, b}) {
            if (app != null) {
                app.close();
            }
        }
        servers.close();
    }

    @Test
    void health_showsTenuresComponent_withItsStoresAndFallback() throws Exception {
        HttpResponse<String> r = get(a, "/actuator/health");
        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode tenure = json.readTree(r.body()).path("components").path("tenure");
        assertThat(tenure.path("status").asString()).isEqualTo("UP");
        assertThat(tenure.path("details").path("database").asString()).isEqualTo("reachable");
        assertThat(tenure.path("details").path("valkey").asString()).isEqualTo("reachable");
        assertThat(tenure.path("details").path("fallbackActive").asBoolean()).isFalse();
        assertThat(tenure.path("details").path("mode").asString()).isEqualTo("VALKEY_WITH_DATABASE_FALLBACK");
    }

    @Test
    void health_withValkeyFrozen_saysSo_andStaysUp_becauseTheDatabaseCarriesTheRuns() throws Exception {
        servers.valkey().pause();
        try {
            HttpResponse<String> r = get(a, "/actuator/health");
            JsonNode tenure = json.readTree(r.body()).path("components").path("tenure");
            System.out.println("health with Valkey frozen: HTTP " + r.statusCode() + " " + tenure);
            assertThat(tenure.path("status").asString()).isEqualTo("UP");
            assertThat(tenure.path("details").path("valkey").asString())
                    .isEqualTo(
                            "Valkey " + servers.valkey().address() + ": no answer within the request timeout (500 ms)");
            assertThat(tenure.path("details").path("database").asString()).isEqualTo("reachable");
        } finally {
            servers.valkey().resume();
        }
    }

    @Test
    void theEndpoint_listsTheHeldJob_refusesTheForceReleaseUnlessEnabled_andWhenEnabledFencesTheOldHolderOut()
            throws Exception {
        HeldSettlement held = a.getBean(HeldSettlement.class);
        // the run must take a Valkey lease: after the test that freezes Valkey, the fallback may still be on (a loaded
        // run started the held run through the database alone, and its force-release found no Valkey lease)
        await().atMost(Timing.scaled(Duration.ofSeconds(30)))
                .until(() -> !json.readTree(get(a, "/actuator/health").body())
                        .path("components")
                        .path("tenure")
                        .path("details")
                        .path("fallbackActive")
                        .asBoolean(true));
        Thread holder = held.gate().callUntilReached(held::settle, Duration.ofSeconds(20));

        JsonNode job = job(json.readTree(get(a, "/actuator/tenure").body()), "held-settlement");
        assertThat(job.path("holder").asString())
                .as("the holder's node name (tenure.node-name)")
                .isEqualTo(NODE_A);
        assertThat(job.path("owner").asString()).as("its owner id").matches("[0-9a-f]{16}-\\d+-\\d+\\.\\d+");
        assertThat(job.path("leaseLeftMillis").asLong()).isPositive();
        long epoch = job.path("epoch").asLong();
        JsonNode detail =
                json.readTree(get(a, "/actuator/tenure/held-settlement").body());
        assertThat(detail.path("lastRuns").get(0).path("status").asString()).isEqualTo("RUNNING");
        assertThat(detail.path("lastRuns").get(0).path("node").asString()).isEqualTo(NODE_A);
        assertThat(get(a, "/actuator/tenure/no-such-job").statusCode()).isEqualTo(404);

        HttpResponse<String> refused = post(a, "/actuator/tenure/held-settlement", "{\"reason\":\"stuck\"}");
        System.out.println("force-release on the read-only instance: HTTP " + refused.statusCode());
        assertThat(refused.statusCode())
                .as("write operations of a read-only endpoint are not mapped")
                .isEqualTo(405);
        assertThat(servers.queryLong(
                        "SELECT fencing_token FROM tenure.job_execution WHERE job_key = 'held-settlement'"))
                .isEqualTo(epoch);

        HttpResponse<String> released =
                post(b, "/actuator/tenure/held-settlement", "{\"reason\":\"holder stuck since the deploy\"}");
        System.out.println(
                "force-release on the unrestricted instance: HTTP " + released.statusCode() + " " + released.body());
        assertThat(released.statusCode()).isEqualTo(200);
        JsonNode r = json.readTree(released.body());
        assertThat(r.path("oldEpoch").asLong()).isEqualTo(epoch);
        assertThat(r.path("newEpoch").asLong()).isGreaterThan(epoch);
        assertThat(r.path("oldHolder").asString()).isEqualTo(NODE_A);
        assertThat(r.path("actor").asString()).isEqualTo("actuator");
        assertThat(r.path("valkeyLease").asString())
                .as("the holder's Valkey lease")
                .isEqualTo("DELETED");
        assertThat(servers.valkey().command("EXISTS", "{tenure:held-settlement}:lease"))
                .isEqualTo(0L);
        assertThat(servers.queryLong("SELECT count(*) FROM tenure.audit_log WHERE job_key = 'held-settlement' "
                        + "AND actor = 'actuator' AND reason = 'holder stuck since the deploy' AND old_epoch = "
                        + epoch))
                .isEqualTo(1);

        held.gate().open();
        holder.join(Duration.ofSeconds(20).toMillis());
        assertThat(servers.queryLong("SELECT count(*) FROM settlement_entry WHERE instance = 'held'"))
                .isZero();
        assertThat(a.getBean(Events.class).byFire().values())
                .anySatisfy(events -> assertThat(events).contains("finished LEASE_LOST: lease held false"));
    }

    @Test
    void theEndpoint_showsEachScheduleAsData_andTheFiresHealthIsUp() throws Exception {
        JsonNode held = null;
        for (JsonNode s : json.readTree(get(a, "/actuator/tenure").body()).path("schedules")) {
            held = s.path("jobKey").asString().equals("held-settlement") ? s : held;
        }
        assertThat(held).as("the @Coordinated @Scheduled method's schedule").isNotNull();
        assertThat(held.path("state").asString()).isEqualTo("ACTIVE");
        assertThat(held.path("version").asInt()).isEqualTo(1);
        assertThat(held.path("application").asString()).isNotBlank();
        assertThat(held.path("seenAt").asString()).startsWith("20");
        assertThat(held.path("checkAt").asString()).startsWith("20");
        JsonNode fires = json.readTree(get(a, "/actuator/health").body())
                .path("components")
                .path("tenureFires");
        assertThat(fires.path("status").asString()).isEqualTo("UP");
    }

    private static JsonNode job(JsonNode list, String jobKey) {
        for (JsonNode j : list.path("jobs")) {
            if (j.path("jobKey").asString().equals(jobKey)) {
                return j;
            }
        }
        throw new AssertionError("no job " + jobKey + " in " + list);
    }

    private HttpResponse<String> get(ConfigurableApplicationContext app, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(app, path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(ConfigurableApplicationContext app, String path, String body) throws Exception {
        return http.send(
                HttpRequest.newBuilder(uri(app, path))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static URI uri(ConfigurableApplicationContext app, String path) {
        int port = ((WebServerApplicationContext) app).getWebServer().getPort();
        return URI.create("http://127.0.0.1:" + port + path);
    }

    private static String[] append(String[] a, String b) {
        String[] all = java.util.Arrays.copyOf(a, a.length + 1);
        all[a.length] = b;
        return all;
    }
}
