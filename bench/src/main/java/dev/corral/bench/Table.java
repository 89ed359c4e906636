package dev.corral.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The results: rows of (workload, metric), a value per system, and whether
 * higher or lower is better (for Corral's ratio to each reference). Also the
 * raw latency series behind the percentiles, and notes (skips, failures).
 */
public final class Table {
  /** Which way a metric is better. */
  public enum Better { HIGHER, LOWER, NONE }

  /** One row. */
  public static final class Row {
    public final String workload;
    public final String metric;
    public final Better better;
    public final Map<String, Double> values = new LinkedHashMap<>();
    public final Map<String, String> text = new LinkedHashMap<>();

    Row(String workload, String metric, Better better) {
      this.workload = workload;
      this.metric = metric;
      this.better = better;
    }

    /** The value for {@code system}, or NaN. */
    public double value(String system) {
      return values.getOrDefault(system, Double.NaN);
    }
  }

  /** One latency series: raw samples of a workload on a system. */
  public record Series(String key, String title, String system, long[] nanos) {}

  private final Map<String, Row> rows = new LinkedHashMap<>();
  private final List<Series> series = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();

  /** Records a value (the row is created on first use, in order). */
  public synchronized void put(String workload, String metric, Better better, String system, double value) {
    row(workload, metric, better).values.put(system, value);
  }

  /** Records a text cell (e.g. "not yet", "failed"). */
  public synchronized void putText(String workload, String metric, Better better, String system, String value) {
    row(workload, metric, better).text.put(system, value);
  }

  private Row row(String workload, String metric, Better better) {
    return rows.computeIfAbsent(workload + "\u0000" + metric, k -> new Row(workload, metric, better));
  }

  public synchronized void addSeries(String key, String title, String system, Samples samples) {
    series.add(new Series(key, title, system, samples.toArray()));
  }

  public synchronized void note(String note) {
    notes.add(note);
  }

  public synchronized List<Row> rows() {
    return new ArrayList<>(rows.values());
  }

  public synchronized List<Series> series() {
    return new ArrayList<>(series);
  }

  public synchronized List<String> notes() {
    return new ArrayList<>(notes);
  }

  /** The row, or null. */
  public synchronized Row find(String workload, String metric) {
    return rows.get(workload + "\u0000" + metric);
  }
}
