package dev.tenure.examples;

import dev.tenure.LeaderElection;
import dev.tenure.Tenure;
import dev.tenure.ValkeyConfig;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * A leader-elected worker ({@code tenure.leaderElection}): two application instances (two {@link Tenure}s here, one
 * per process in real life) campaign for the "reporter" role; one leads, the other waits; when the leader stops, the
 * other takes over at once, under a larger epoch (the role's database lease's epoch). Prints each step.
 */
public final class LeaderElectionExample {

    public static void main(String[] args) throws InterruptedException {
        try (ExampleServers servers = ExampleServers.postgresAndValkey(LeaderElectionExample.class)) {
            run(
                    servers.dataSource(),
                    ValkeyConfig.standalone(servers.valkeyAddress()).build());
        }
    }

    static void run(DataSource dataSource, ValkeyConfig valkey) throws InterruptedException {
        try (Tenure nodeA =
                        Tenure.builder().dataSource(dataSource).valkey(valkey).build();
                Tenure nodeB =
                        Tenure.builder().dataSource(dataSource).valkey(valkey).build()) {
            LeaderElection a = reporter(nodeA, "node-a");
            long epochA = awaitLeader(a);
            LeaderElection b = reporter(nodeB, "node-b");
            Thread.sleep(500);
            System.out.println("node-b leads while node-a does: " + b.isLeader());
            a.stop(); // resigns: releases the role, so node-b need not wait for the lease to expire
            long epochB = awaitLeader(b);
            System.out.println("node-b took over; its epoch is larger: " + (epochB > epochA));
        }
    }

    // tag::leader-election[]
    static LeaderElection reporter(Tenure tenure, String node) {
        LeaderElection election = tenure.leaderElection("reporter", new LeaderElection.Listener() {
            @Override
            public void elected(long epoch) {         // on the election's thread: start the leader's work, don't block
                System.out.println(node + " elected, epoch " + epoch);
            }

            @Override
            public void revoked(String reason) {      // stop it: another instance may lead from now on
                System.out.println(node + " revoked: " + reason);
            }
        });
        election.start();   // campaigns until stop() or tenure.close(), and again after every loss
        return election;
    }
    // end::leader-election[]

    private static long awaitLeader(LeaderElection election) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!election.isLeader()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(election.owner() + " not elected within 30 s");
            }
            Thread.sleep(10);
        }
        return election.epoch().orElseThrow();
    }
}
