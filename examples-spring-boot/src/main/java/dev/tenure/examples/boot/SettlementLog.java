package dev.tenure.examples.boot;

import dev.tenure.JobContext;
import dev.tenure.RunOutcome;
import dev.tenure.boot.CoordinatedRunListener;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * What an instance prints: READY (its port, and the Flyway and HikariCP it runs on), BEGIN when it holds a slot,
 * SETTLED when its slot committed, STALE when its run lost the job and its write was rolled back, NOT-HERE with the
 * status of a fire another instance had (or held the job for). The launcher and the tests read these lines.
 */
@Component
public class SettlementLog implements CoordinatedRunListener {

    private final String instance;

    public SettlementLog(@Value("${settlement.instance}") String instance) {
        this.instance = instance;
    }

    @EventListener
    public void ready(ApplicationReadyEvent event) {
        int port = event.getApplicationContext() instanceof WebServerApplicationContext web
                ? web.getWebServer().getPort()
                : -1;
        print("READY " + instance + " port " + port + " flyway " + version("org.flywaydb.core.Flyway") + " hikaricp "
                + version("com.zaxxer.hikari.HikariDataSource"));
    }

    @Override
    public void claimed(JobContext run) {
        print("BEGIN " + run.fireKey() + " " + instance + " epoch " + run.epoch());
    }

    @Override
    public void finished(RunOutcome<?> o) {
        if (o.status() == RunOutcome.Status.EXECUTED && o.completedInTransaction()) {
            print("SETTLED " + o.fireKey() + " " + instance + " epoch " + o.epoch());
        } else if (o.status() == RunOutcome.Status.LEASE_LOST) {
            print("STALE " + o.fireKey() + " " + instance + " epoch " + o.epoch() + ": its write was rolled back");
        } else {
            print("NOT-HERE " + o.fireKey() + " " + instance + " " + o.status());
        }
    }

    private static void print(String line) {
        System.out.println(line);
        System.out.flush();
    }

    /** The version in the name of the jar a class came from, e.g. 11.14.1 for flyway-core-11.14.1.jar. */
    static String version(String className) {
        try {
            String jar = Class.forName(className)
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .getPath();
            return jar.replaceAll(".*-(\\d[^/]*)\\.jar$", "$1");
        } catch (ClassNotFoundException | RuntimeException e) {
            return "unknown";
        }
    }
}
