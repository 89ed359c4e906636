package dev.corral.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.bench.Table.Better;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReportTest {
  @Test
  void percentilesAreNearestRank() {
    Samples s = new Samples();
    for (int i = 1; i <= 100; i++) {
      s.add(i * 1_000_000L);
    }
    assertEquals(50_000_000, s.percentile(50));
    assertEquals(99_000_000, s.percentile(99));
    assertEquals(100_000_000, s.percentile(100));
    assertEquals(1_000_000, s.percentile(0));
    assertEquals(50.0, s.p50Ms());
    assertTrue(Double.isNaN(new Samples().percentile(50)));
  }

  @Test
  void ratiosAndTargetsAreCorralOverZooKeeper() {
    Table t = new Table();
    t.put("W2 uncontended lock, 1 client", "cycles/s", Better.HIGHER, "corral", 2000);
    t.put("W2 uncontended lock, 1 client", "cycles/s", Better.HIGHER, "zookeeper", 800);
    t.put("W5 watch latency (setData -> callback)", "p50 ms", Better.LOWER, "corral", 0.5);
    t.put("W5 watch latency (setData -> callback)", "p50 ms", Better.LOWER, "zookeeper", 0.4);
    t.put("W3 contended lock, 16 sessions", "violations", Better.LOWER, "corral", 0);
    t.put("MEM server RSS", "bytes per node", Better.LOWER, "corral", 900);
    t.put("MEM server RSS", "bytes per node", Better.LOWER, "zookeeper", 2900);
    t.put("MEM server RSS", "bytes per node", Better.LOWER, "etcd", 1100);
    Report report = new Report(t, List.of("corral", "zookeeper", "etcd"));
    String md = report.markdownTable();
    assertTrue(md.contains("| 2.50x |"), md);
    assertTrue(md.contains("1.25x ✗"), md);
    List<Report.Target> targets = report.targets();
    assertEquals("met", find(targets, "W2").verdict());
    assertEquals("MISSED", find(targets, "W5").verdict());
    assertEquals("met", find(targets, "W3 violations").verdict());
    assertEquals("met", find(targets, "MEM").verdict());
    assertTrue(find(targets, "W6").verdict().startsWith("not yet"));
    assertEquals("—", find(targets, "W1 create 8").verdict());
  }

  @Test
  void argumentsParse() {
    BenchMain.Options o = BenchMain.parse(new String[] {"corral", "zookeeper", "--quick", "--only", "w1,mem"});
    assertEquals(List.of("corral", "zookeeper"), o.systems());
    assertEquals("quick", o.params().name());
    assertEquals(java.util.Set.of("W1", "MEM"), o.only());
    assertEquals(List.of("corral", "zookeeper", "etcd"), BenchMain.parse(new String[] {"all"}).systems());
  }

  private static Report.Target find(List<Report.Target> targets, String prefix) {
    return targets.stream().filter(x -> x.target().startsWith(prefix)).findFirst().orElseThrow();
  }
}
