package dev.tenure.console;

import java.time.Instant;

/** The frame of every page: head (style sheet, script), header, the live part that refreshes itself, footer. */
final class Layout {

    private Layout() {}

    /**
     * A whole page. {@code live} is replaced every {@code refreshSeconds} by the script (0: no refresh); {@code fixed}
     * stays (forms, so typing is never lost). Every argument except {@code live} and {@code fixed} is escaped here;
     * those two are HTML built by the pages, which escape their values.
     */
    static String page(String base, String title, String live, String fixed, int refreshSeconds, Instant now) {
        return "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + Html.esc(title)
                + " · Tenure console</title><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                + "<link rel=\"stylesheet\" href=\"" + Html.esc(base) + "/static/console.css\">"
                + "<script src=\"" + Html.esc(base) + "/static/console.js\" defer></script></head>"
                + "<body data-refresh=\"" + refreshSeconds + "\"><header><a class=\"brand\" href=\"" + Html.esc(base)
                + "/\">Tenure console</a><span class=\"title\">" + Html.esc(title) + "</span><span class=\"refresh\">"
                + (refreshSeconds > 0 ? "live: refreshes every " + refreshSeconds + " s" : "") + "</span></header>"
                + "<main><div id=\"live\"><p class=\"stamp\">as of " + Html.esc(Html.time(now)) + "</p>" + live
                + "</div>"
                + fixed
                + "</main><footer>Read from Tenure's tables (and Valkey's lease keys when given). Times are UTC; "
                + "lease time left is by the database clock.</footer></body></html>";
    }

    /** A table: header cells (escaped) and rows already rendered as {@code <tr>}s; a note instead when empty. */
    static String table(String cssClass, String[] headers, StringBuilder rows, String empty) {
        if (rows.length() == 0) {
            return "<p class=\"note\">" + Html.esc(empty) + "</p>";
        }
        StringBuilder s = new StringBuilder("<table class=\"").append(cssClass).append("\"><thead><tr>");
        for (String h : headers) {
            s.append("<th>").append(Html.esc(h)).append("</th>");
        }
        return s.append("</tr></thead><tbody>")
                .append(rows)
                .append("</tbody></table>")
                .toString();
    }

    /** A {@code <td>} with escaped text and an optional class. */
    static String td(Object text, String cssClass) {
        return (cssClass == null ? "<td>" : "<td class=\"" + cssClass + "\">") + Html.esc(text) + "</td>";
    }

    /** A status badge cell. */
    static String status(String status) {
        return status == null
                ? "<td></td>"
                : "<td><span class=\"badge st-" + Html.esc(status) + "\">" + Html.esc(status) + "</span></td>";
    }
}
