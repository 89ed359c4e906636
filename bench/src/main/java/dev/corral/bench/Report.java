package dev.corral.bench;

import dev.corral.bench.Table.Better;
import dev.corral.bench.Table.Row;
import dev.corral.bench.Table.Series;
import java.awt.Color;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** Writes the results: the markdown table (with Corral's ratios), raw CSVs and PNG charts. */
public final class Report {
  static final String CORRAL = "corral";
  private static final Map<String, Color> COLORS = Map.of(
      "corral", new Color(0x2E7D32), "zookeeper", new Color(0x1565C0), "etcd", new Color(0xEF6C00));

  private final Table table;
  private final List<String> systems;

  public Report(Table table, List<String> systems) {
    this.table = table;
    this.systems = systems;
  }

  private List<String> references() {
    return systems.stream().filter(s -> !s.equals(CORRAL)).toList();
  }

  static String format(String metric, double v) {
    if (Double.isNaN(v)) {
      return "—";
    }
    if (Double.isInfinite(v)) {
      return "∞";
    }
    if (metric.startsWith("violations")) {
      return String.format(Locale.ROOT, "%.0f", v);
    }
    if (metric.contains("ms")) {
      return v < 10 ? String.format(Locale.ROOT, "%.3f", v) : String.format(Locale.ROOT, "%,.1f", v);
    }
    if (metric.startsWith("fairness")) {
      return String.format(Locale.ROOT, "%.2f", v);
    }
    if (metric.contains("MiB")) {
      return String.format(Locale.ROOT, "%,.1f", v);
    }
    return String.format(Locale.ROOT, "%,.0f", v);
  }

  /** Corral's value divided by the reference's, or NaN. */
  static double ratio(Row row, String reference) {
    double c = row.value(CORRAL);
    double r = row.value(reference);
    if (Double.isNaN(c) || Double.isNaN(r) || r == 0 || row.better == Better.NONE) {
      return Double.NaN;
    }
    return c / r;
  }

  private static String ratioText(Row row, String reference) {
    if (row.metric.startsWith("violations") || row.metric.startsWith("spurious")) {
      return "—";
    }
    double q = ratio(row, reference);
    if (Double.isNaN(q) || Double.isInfinite(q)) {
      return "—";
    }
    boolean better = row.better == Better.HIGHER ? q >= 1 : q <= 1;
    return String.format(Locale.ROOT, "%.2fx%s", q, better ? "" : " ✗");
  }

  /** The results table as markdown. */
  public String markdownTable() {
    StringBuilder sb = new StringBuilder();
    sb.append("| workload | metric |");
    for (String s : systems) {
      sb.append(' ').append(s).append(" |");
    }
    if (systems.contains(CORRAL)) {
      for (String r : references()) {
        sb.append(" corral / ").append(r).append(" |");
      }
    }
    sb.append('\n').append("|---|---|");
    sb.append("---:|".repeat(systems.size()));
    if (systems.contains(CORRAL)) {
      sb.append("---:|".repeat(references().size()));
    }
    sb.append('\n');
    String lastWorkload = "";
    for (Row row : table.rows()) {
      String arrow = row.better == Better.HIGHER ? " ↑" : row.better == Better.LOWER ? " ↓" : "";
      sb.append("| ").append(row.workload.equals(lastWorkload) ? "" : row.workload).append(" | ")
          .append(row.metric).append(arrow).append(" |");
      lastWorkload = row.workload;
      for (String s : systems) {
        String text = row.text.get(s);
        sb.append(' ').append(text != null ? text : format(row.metric, row.value(s))).append(" |");
      }
      if (systems.contains(CORRAL)) {
        for (String r : references()) {
          sb.append(' ').append(ratioText(row, r)).append(" |");
        }
      }
      sb.append('\n');
    }
    return sb.toString();
  }

  /** One target check. */
  public record Target(String target, String measured, String verdict) {}

  /** The targets of issue 6, judged against ZooKeeper + Curator of this run. */
  public List<Target> targets() {
    List<Target> out = new ArrayList<>();
    String zk = "zookeeper";
    if (!systems.contains(CORRAL) || !systems.contains(zk)) {
      return out;
    }
    check(out, "W2 uncontended lock cycles/s >= 2.0x", "W2 uncontended lock, 1 client", "cycles/s", zk, 2.0, true);
    check(out, "W3 contended acquisitions/s >= 1.5x", "W3 contended lock, 16 sessions", "acquisitions/s", zk, 1.5,
        true);
    absolute(out, "W3 violations = 0", "W3 contended lock, 16 sessions", "violations", 0, true);
    absolute(out, "W3 fairness max/min <= 1.1", "W3 contended lock, 16 sessions", "fairness max/min", 1.1, true);
    for (String op : List.of("create", "setData", "delete")) {
      check(out, "W1 " + op + " 8 clients >= 1.5x", "W1 " + op + ", 8 clients", "ops/s", zk, 1.5, true);
    }
    for (String op : List.of("create", "setData", "delete")) {
      check(out, "W1 " + op + " 1 client >= 1.0x", "W1 " + op + ", 1 client", "ops/s", zk, 1.0, true);
    }
    check(out, "W1 getData 1 client >= 1.0x", "W1 getData, 1 client", "ops/s", zk, 1.0, true);
    check(out, "W1 getData 8 clients >= 1.0x", "W1 getData, 8 clients", "ops/s", zk, 1.0, true);
    check(out, "W5 watch latency p50 <= 1.0x", "W5 watch latency (setData -> callback)", "p50 ms", zk, 1.0, false);
    check(out, "W6 ensemble write throughput >= 1.5x", EnsembleWorkload.THROUGHPUT, "ops/s", zk, 1.5, true);
    check(out, "W6 leader kill -> first write <= 1.0x", EnsembleWorkload.FAILOVER, EnsembleWorkload.FIRST, zk, 1.0,
        false);
    Row mem = table.find("MEM server RSS", "bytes per node");
    if (mem == null || Double.isNaN(mem.value(CORRAL))) {
      out.add(new Target("MEM bytes per node <= 1,000 and below both references", "not measured", "—"));
    } else {
      double c = mem.value(CORRAL);
      boolean ok = c <= 1000;
      StringBuilder measured = new StringBuilder(format("bytes", c) + " B/node");
      for (String r : references()) {
        double v = mem.value(r);
        measured.append("; ").append(r).append(' ').append(format("bytes", v));
        if (!Double.isNaN(v) && c >= v) {
          ok = false;
        }
      }
      out.add(new Target("MEM bytes per node <= 1,000 and below both references", measured.toString(),
          ok ? "met" : "MISSED"));
    }
    return out;
  }

  private void check(List<Target> out, String target, String workload, String metric, String ref, double bound,
      boolean higher) {
    Row row = table.find(workload, metric);
    double q = row == null ? Double.NaN : ratio(row, ref);
    if (Double.isNaN(q)) {
      out.add(new Target(target, "not measured", "—"));
      return;
    }
    boolean ok = higher ? q >= bound : q <= bound;
    out.add(new Target(target, String.format(Locale.ROOT, "%.2fx (%s vs %s)", q, format(metric, row.value(CORRAL)),
        format(metric, row.value(ref))), ok ? "met" : "MISSED"));
  }

  private void absolute(List<Target> out, String target, String workload, String metric, double bound,
      boolean atMost) {
    Row row = table.find(workload, metric);
    double v = row == null ? Double.NaN : row.value(CORRAL);
    if (Double.isNaN(v)) {
      out.add(new Target(target, "not measured", "—"));
      return;
    }
    boolean ok = atMost ? v <= bound : v >= bound;
    out.add(new Target(target, format(metric, v), ok ? "met" : "MISSED"));
  }

  /** The targets as a markdown table. */
  public String markdownTargets() {
    List<Target> targets = targets();
    if (targets.isEmpty()) {
      return "_Targets are judged against ZooKeeper + Curator of the same run; this run did not include both._\n";
    }
    StringBuilder sb = new StringBuilder("| target (Corral / ZooKeeper + Curator, this run) | measured | verdict |\n"
        + "|---|---|---|\n");
    for (Target t : targets) {
      sb.append("| ").append(t.target()).append(" | ").append(t.measured()).append(" | ").append(t.verdict())
          .append(" |\n");
    }
    return sb.toString();
  }

  /** Raw samples as CSV files (system,seq,latency_us), one per series key; returns the file names. */
  public List<String> writeCsv(Path dir) throws IOException {
    Files.createDirectories(dir);
    Map<String, List<Series>> byKey = byKey();
    List<String> files = new ArrayList<>();
    for (Map.Entry<String, List<Series>> e : byKey.entrySet()) {
      Path file = dir.resolve(e.getKey() + ".csv");
      try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
        w.write("system,seq,latency_us\n");
        for (Series s : e.getValue()) {
          long[] v = s.nanos();
          for (int i = 0; i < v.length; i++) {
            w.write(s.system() + "," + i + "," + String.format(Locale.ROOT, "%.1f", v[i] / 1000.0) + "\n");
          }
        }
      }
      files.add(file.getFileName().toString());
    }
    Path summary = dir.resolve("summary.csv");
    try (BufferedWriter w = Files.newBufferedWriter(summary, StandardCharsets.UTF_8)) {
      w.write("workload,metric,system,value\n");
      for (Row row : table.rows()) {
        for (String s : systems) {
          if (!Double.isNaN(row.value(s))) {
            w.write('"' + row.workload + "\",\"" + row.metric + "\"," + s + ","
                + String.format(Locale.ROOT, "%.6f", row.value(s)) + "\n");
          }
        }
      }
    }
    files.add(summary.getFileName().toString());
    return files;
  }

  private Map<String, List<Series>> byKey() {
    Map<String, List<Series>> byKey = new LinkedHashMap<>();
    for (Series s : table.series()) {
      byKey.computeIfAbsent(s.key(), k -> new ArrayList<>()).add(s);
    }
    return byKey;
  }

  /**
   * PNG charts: a latency percentile chart per series key, throughput bars, W6's failover medians as bars;
   * returns the file names.
   */
  public List<String> writeCharts(Path dir) throws IOException {
    System.setProperty("java.awt.headless", "true");
    Files.createDirectories(dir);
    List<String> files = new ArrayList<>();
    for (Map.Entry<String, List<Series>> e : byKey().entrySet()) {
      List<Series> list = e.getValue();
      if (list.stream().allMatch(s -> s.nanos().length == 0)) {
        continue;
      }
      XYChart chart = new XYChartBuilder().width(900).height(500).title(list.get(0).title() + ": latency by percentile")
          .xAxisTitle("percentile").yAxisTitle("latency (ms, log)").build();
      chart.getStyler().setYAxisLogarithmic(true);
      chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
      chart.getStyler().setMarkerSize(3);
      for (Series s : list) {
        long[] sorted = s.nanos().clone();
        if (sorted.length == 0) {
          continue;
        }
        java.util.Arrays.sort(sorted);
        List<Double> xs = new ArrayList<>();
        List<Double> ys = new ArrayList<>();
        double[] points = percentilePoints();
        for (double p : points) {
          xs.add(p);
          ys.add(Math.max(0.001, Samples.percentile(sorted, p) / 1e6));
        }
        var series = chart.addSeries(s.system() + " (n=" + sorted.length + ")", xs, ys);
        series.setMarker(SeriesMarkers.CIRCLE);
        Color color = COLORS.get(s.system());
        if (color != null) {
          series.setLineColor(color);
          series.setMarkerColor(color);
        }
      }
      String name = "latency-" + e.getKey() + ".png";
      BitmapEncoder.saveBitmap(chart, dir.resolve(name).toString(), BitmapEncoder.BitmapFormat.PNG);
      files.add(name);
    }
    Map<String, List<Row>> groups = new LinkedHashMap<>();
    for (Row r : table.rows()) {
      if (r.metric.endsWith("/s")) {
        String group = r.workload.startsWith("W1") ? "throughput-w1" : r.workload.startsWith("W6") ? "throughput-w6"
            : "throughput-locks";
        groups.computeIfAbsent(group, g -> new ArrayList<>()).add(r);
      } else if (r.workload.equals(EnsembleWorkload.FAILOVER) && r.metric.endsWith("median ms")) {
        groups.computeIfAbsent("failover-w6", g -> new ArrayList<>()).add(r);
      }
    }
    for (Map.Entry<String, List<Row>> g : groups.entrySet()) {
      List<Row> rows = g.getValue();
      boolean failover = g.getKey().startsWith("failover");
      CategoryChart chart = new CategoryChartBuilder().width(1100).height(550)
          .title(switch (g.getKey()) {
            case "throughput-w1" -> "W1 throughput, ops/s (higher is better)";
            case "throughput-w6" -> "W6 3-server ensemble, setData by 8 clients, ops/s (higher is better)";
            case "failover-w6" -> "W6 kill -9 of the leader, median ms (lower is better)";
            default -> "Lock throughput: W2 cycles/s, W3 acquisitions/s (higher is better)";
          })
          .xAxisTitle(failover ? "measured from the kill" : "workload").yAxisTitle(failover ? "ms" : "per second")
          .build();
      chart.getStyler().setXAxisLabelRotation(failover ? 0 : 20);
      chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
      chart.getStyler().setOverlapped(false);
      List<String> labels = rows.stream().map(r -> failover ? r.metric : r.workload).toList();
      for (String s : systems) {
        List<Double> values = new ArrayList<>();
        boolean any = false;
        for (Row r : rows) {
          double v = r.value(s);
          any |= !Double.isNaN(v);
          values.add(Double.isNaN(v) ? 0.0 : v);
        }
        if (any) {
          var series = chart.addSeries(s, labels, values);
          Color color = COLORS.get(s);
          if (color != null) {
            series.setFillColor(color);
          }
        }
      }
      String name = g.getKey() + ".png";
      BitmapEncoder.saveBitmap(chart, dir.resolve(name).toString(), BitmapEncoder.BitmapFormat.PNG);
      files.add(name);
    }
    return files;
  }

  static double[] percentilePoints() {
    List<Double> points = new ArrayList<>();
    for (int p = 1; p <= 95; p += 2) {
      points.add((double) p);
    }
    for (double p : new double[] {96, 97, 98, 99, 99.5, 99.9, 100}) {
      points.add(p);
    }
    return points.stream().mapToDouble(Double::doubleValue).toArray();
  }
}
