package dev.tenure.console;

import dev.tenure.db.TenureAdmin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.LinkedHashMap;
import java.util.Map;

/** {@code release JOB --reason …}: force-release through {@link TenureAdmin#forceRelease}, audited. */
@Command(name = "release", description = "Force-release a job: bumps the epoch (the holder's next fence fails), "
        + "abandons its running run, writes an audit row.")
final class ReleaseCommand extends CliCommand {

    @Parameters(index = "0", paramLabel = "JOB", description = "the job key")
    String job;

    @Option(names = "--reason", required = true, description = "why (1..500 characters; kept in audit_log)")
    String reason;

    @Option(names = "--actor", description = "who, for audit_log (default: cli:<OS user>)")
    String actor;

    @Override
    Output execute(Context ctx) {
        String who = actor != null ? actor : "cli:" + System.getProperty("user.name", "unknown");
        TenureAdmin.ForceRelease r = TenureAdmin.create(ctx.dataSource(), ctx.schema()).forceRelease(job, reason, who);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("job", r.jobKey());
        json.put("oldEpoch", r.oldEpoch());
        json.put("oldOwner", r.oldOwner());
        json.put("newEpoch", r.newEpoch());
        json.put("auditId", r.auditId());
        json.put("actor", who);
        return new Output(json, "released " + r.jobKey() + ": epoch " + r.oldEpoch() + " -> " + r.newEpoch()
                + (r.oldOwner() == null ? " (nobody held it)" : " (was held by " + Nodes.of(r.oldOwner()) + ")")
                + ", audit #" + r.auditId() + " by " + who + System.lineSeparator());
    }
}
