package dev.tenure.console;

import dev.tenure.db.TenureAdmin;
import picocli.CommandLine.Option;

/**
 * {@code --valkey HOST:PORT}, {@code --valkey-user}, {@code --valkey-namespace} (the password from env
 * {@code TENURE_VALKEY_PASSWORD}): Tenure's Valkey, for a command that deletes a job's Valkey lease.
 */
final class ValkeyOptions {

    @Option(
            names = "--valkey",
            paramLabel = "HOST:PORT",
            description = "also delete the job's Valkey lease (standalone "
                    + "server; password from env TENURE_VALKEY_PASSWORD, user from --valkey-user)")
    String address;

    @Option(names = "--valkey-user", description = "Valkey ACL user")
    String user;

    @Option(
            names = "--valkey-namespace",
            defaultValue = "tenure",
            description = "Tenure's Valkey namespace (default: ${DEFAULT-VALUE})")
    String namespace;

    /** The force-release of {@code ctx}'s database, with Valkey's lease deletion when {@code --valkey} is given. */
    TenureAdmin admin(CliCommand.Context ctx) {
        if (address == null) {
            return TenureAdmin.create(ctx.dataSource(), ctx.schema());
        }
        String password = System.getenv("TENURE_VALKEY_PASSWORD");
        return TenureAdmin.create(
                ctx.dataSource(),
                ctx.schema(),
                new ValkeyLeases(address, namespace, password == null ? null : user, password));
    }
}
