package dev.tenure.it;

import dev.tenure.LeaseOptions;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.ValkeyConfig;
import dev.tenure.db.TenureDataSources;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * A plain Java application that closes its Tenure in a shutdown hook, as one that handles SIGTERM does:
 * {@code <valkey address> <jdbc url> <user> <password> <job> <work ms>}. It runs fire {@code f1} of {@code job} (30 s
 * TTL), prints {@code BEGIN}, works for {@code work ms}, writes its row through the completion, then prints
 * {@code OUTCOME <status>}.
 */
public final class SigtermWorker {

    public static void main(String[] a) throws Exception {
        String password = a[3].equals("-") ? "" : a[3];
        DataSource ds = TenureDataSources.hikari(a[1], a[2], password);
        Tenure tenure = Tenure.builder()
                .dataSource(ds)
                .leaseDefaults(LeaseOptions.ofTtl(Duration.ofSeconds(30)))
                .valkey(ValkeyConfig.standalone(a[0]).build())
                .build();
        Runtime.getRuntime().addShutdownHook(new Thread(tenure::close, "close-tenure"));
        String job = a[4];
        long work = Long.parseLong(a[5]);
        RunOutcome<Void> o = tenure.coordinator().run(job, "f1", RunPolicy.skipFire(), ctx -> {
            System.out.println("BEGIN " + ctx.epoch());
            Thread.sleep(work);
            FencedWrite.insert(ds, ctx, job + "/f1");
            return null;
        });
        System.out.println("OUTCOME " + o.status() + " " + o.error());
    }
}
