package dev.tenure.console;

import dev.tenure.db.TenureSchema;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;

/** {@code migrate}: creates or upgrades Tenure's schema (Flyway, Tenure's own history table). */
@Command(name = "migrate", description = "Create or upgrade Tenure's schema (needs CREATE on the database or schema).")
final class MigrateCommand extends CliCommand {

    @Override
    Output execute(Context ctx) {
        TenureSchema.Migration m = TenureSchema.migrate(ctx.dataSource(), ctx.schema());
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("schema", m.schema());
        json.put("version", m.version());
        json.put("applied", m.applied());
        return new Output(
                json,
                "schema " + m.schema() + " at version " + m.version() + " (" + m.applied() + " migrations applied now)"
                        + System.lineSeparator());
    }
}
