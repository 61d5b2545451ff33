package dev.tenure.console;

import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.db.TenureAdmin;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * A CLI command that reads (or changes) Tenure's tables once and prints the result as a readable table, or as JSON
 * with {@code --json}. Subclasses compute an {@link Output}; this class opens and closes the pool and prints.
 */
abstract class CliCommand implements Callable<Integer> {

    /** What a command prints: the JSON value, and the same as text. */
    record Output(Object json, String text) {}

    @Mixin
    DatabaseOptions database;

    @Option(names = "--json", description = "print JSON instead of a table")
    boolean json;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        try (HikariDataSource ds = database.open()) {
            Output out = execute(new Context(ds, database.schema));
            PrintWriter w = spec.commandLine().getOut();
            w.print(json ? Json.write(out.json()) + System.lineSeparator() : out.text());
            w.flush();
            return 0;
        }
    }

    abstract Output execute(Context ctx);

    /** {@code value} if it is 1..{@code max}, else an error naming the option. */
    static int limit(String option, int value, int max) {
        if (value < 1 || value > max) {
            throw new IllegalArgumentException(option + " must be 1.." + max + " (got " + value + ")");
        }
        return value;
    }

    /** The data source and what the command reads it with. */
    record Context(HikariDataSource dataSource, String schema) {
        ConsoleQueries queries() {
            return new ConsoleQueries(dataSource, schema);
        }

        TenureAdmin admin() {
            return TenureAdmin.create(dataSource, schema);
        }
    }
}
