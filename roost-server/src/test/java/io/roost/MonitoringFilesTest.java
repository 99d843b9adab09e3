package io.roost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The monitoring files hold together: the Grafana dashboard (docker/grafana/roost.json) is valid
 * JSON whose every panel queries something, names only the meters docs/operations.md's table lists
 * (the one list of Roost's metric names), and reads counters and histograms only through rate() or
 * increase(); Prometheus's and compose's files scrape and mount what exists.
 */
class MonitoringFilesTest {

    private static final Path DASHBOARD = RepoFiles.of("docker", "grafana", "roost.json");
    /** A metric selector as the dashboard writes them: a name, then its label matchers. */
    private static final Pattern SELECTOR = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)\\{");
    private static final Pattern TABLE_ROW = Pattern.compile("^\\| `(roost_[a-z0-9_]+)` \\| (counter|gauge|histogram) \\|");
    private static final Pattern RATE_BEFORE = Pattern.compile("(rate|increase)\\(\\s*$");

    /** The dashboard's queries, each with the title of its panel. */
    private static List<String[]> queries() throws IOException {
        JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
        List<String[]> queries = new ArrayList<>();
        for (JsonNode panel : dashboard.path("panels")) {
            for (JsonNode target : panel.path("targets")) {
                queries.add(new String[] {panel.path("title").asText(), target.path("expr").asText()});
            }
        }
        return queries;
    }

    /** Roost's meters by Prometheus name and type, from the table in docs/operations.md#metrics. */
    private static Map<String, String> documentedMeters() throws IOException {
        Map<String, String> meters = new LinkedHashMap<>();
        for (String line : Files.readAllLines(RepoFiles.of("docs", "operations.md"))) {
            Matcher m = TABLE_ROW.matcher(line);
            if (m.find()) {
                meters.put(m.group(1), m.group(2));
            }
        }
        return meters;
    }

    @Test
    void dashboardIsGrafanaJsonWithItsVariables() throws IOException {
        JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
        assertTrue(dashboard.path("schemaVersion").asInt() >= 36, "schemaVersion");
        List<String> variables = new ArrayList<>();
        dashboard.path("templating").path("list").forEach(v -> variables.add(v.path("name").asText()));
        assertEquals(List.of("datasource", "node"), variables);
        assertTrue(dashboard.toString().contains("label_values(up{job=\\\"roost\\\"}, instance)"), "node variable query");
    }

    @Test
    void everyPanelHasAQueryOnTheDashboardsDataSource() throws IOException {
        JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
        int panels = 0;
        for (JsonNode panel : dashboard.path("panels")) {
            if (panel.path("type").asText().equals("row")) {
                continue;
            }
            panels++;
            String title = panel.path("title").asText();
            assertFalse(panel.path("targets").isEmpty(), title + ": no query");
            for (JsonNode target : panel.path("targets")) {
                assertFalse(target.path("expr").asText().isBlank(), title + ": an empty query");
                assertEquals("${datasource}", target.path("datasource").path("uid").asText(), title + ": data source");
            }
        }
        assertTrue(panels > 0, "no panels");
    }

    @Test
    void everyRoostMeterAQueryNamesIsDocumented() throws IOException {
        Map<String, String> meters = documentedMeters();
        assertTrue(meters.size() > 20, "docs/operations.md's meter table not found: " + meters);
        for (String[] q : queries()) {
            Matcher m = SELECTOR.matcher(q[1]);
            while (m.find()) {
                String name = m.group(1);
                if (name.startsWith("roost_")) {
                    assertTrue(meters.containsKey(name) || "histogram".equals(meters.get(histogramOf(name))),
                            q[0] + ": " + name + " is not in docs/operations.md's table of meters");
                }
            }
        }
    }

    @Test
    void countersAndHistogramsAreReadThroughRateOrIncrease() throws IOException {
        Map<String, String> meters = documentedMeters();
        for (String[] q : queries()) {
            Matcher m = SELECTOR.matcher(q[1]);
            while (m.find()) {
                String name = m.group(1);
                boolean cumulative = name.endsWith("_total") || "histogram".equals(meters.get(histogramOf(name)))
                        || name.endsWith("_bucket");
                if (cumulative) {
                    String before = q[1].substring(0, m.start());
                    int close = q[1].indexOf('}', m.end());
                    assertTrue(RATE_BEFORE.matcher(before).find() && q[1].startsWith("[", close + 1),
                            q[0] + ": " + name + " is cumulative; read it with rate(...[...]) or increase(...[...]): " + q[1]);
                }
            }
        }
    }

    @Test
    void histogramsAreReadAsQuantilesOverSummedBuckets() throws IOException {
        for (String[] q : queries()) {
            if (q[1].contains("_bucket{")) {
                assertTrue(q[1].matches("histogram_quantile\\(0\\.\\d+, sum by \\(le(, [a-z_]+)*\\) \\(rate\\(.*_bucket\\{.*\\}\\[[^]]+]\\)\\)\\)"),
                        q[0] + ": " + q[1]);
            }
        }
    }

    @Test
    void prometheusScrapesBothComposeNodesOnTheirManagementPort() throws IOException {
        Map<String, Object> config = yaml(RepoFiles.of("docker", "prometheus.yml"));
        Map<String, Object> job = maps(config.get("scrape_configs")).stream()
                .filter(j -> "roost".equals(j.get("job_name"))).findFirst().orElseThrow();
        assertEquals("/metrics", job.get("metrics_path"));
        Object targets = maps(job.get("static_configs")).get(0).get("targets");
        assertEquals(List.of("roost:9990", "roost-2:9990"), targets);
        // 9990 is the management port the image exposes and binds to every address
        String dockerfile = Files.readString(RepoFiles.of("docker", "Dockerfile"));
        assertTrue(dockerfile.contains("EXPOSE 8080 9990") && dockerfile.contains("\"-bmanagement\", \"0.0.0.0\""), "Dockerfile's ports");
    }

    @Test
    void composeRunsPrometheusAndGrafanaOnFilesThatExist() throws IOException {
        Path compose = RepoFiles.of("docker", "compose.yaml");
        Map<String, Object> services = map(yaml(compose).get("services"));
        for (String service : List.of("roost", "roost-2", "prometheus", "grafana")) {
            assertTrue(services.containsKey(service), "compose has no service " + service);
        }
        for (String node : List.of("roost", "roost-2")) {
            assertEquals("false", map(map(services.get(node)).get("environment")).get("ROOST_METRICS_AUTH"), node);
        }
        for (String service : List.of("prometheus", "grafana")) {
            for (Object volume : (List<?>) map(services.get(service)).get("volumes")) {
                String source = volume.toString().split(":")[0];
                if (source.startsWith("./")) {
                    assertTrue(Files.exists(compose.getParent().resolve(source)), service + " mounts " + source + ", which does not exist");
                }
            }
        }
        String provisioned = Files.readString(RepoFiles.of("docker", "grafana", "provisioning", "dashboards", "roost.yaml"));
        assertTrue(provisioned.contains("path: /var/lib/grafana/dashboards"), "the dashboards' provisioning path");
    }

    /** The histogram a series name belongs to ({@code x_bucket}, {@code x_count}, {@code x_sum}: x). */
    private static String histogramOf(String name) {
        return name.replaceFirst("_(bucket|count|sum)$", "");
    }

    private static Map<String, Object> yaml(Path file) throws IOException {
        return new Yaml().load(Files.readString(file));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> maps(Object o) {
        return (List<Map<String, Object>>) o;
    }
}
