package dev.corral.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.bench.Table.Better;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
    assertEquals("—", find(targets, "W6 ensemble").verdict());
    assertEquals("—", find(targets, "W1 create 8").verdict());
  }

  @Test
  void ensembleFailoverIsLowerIsBetterAndLeaderChangesHaveNoRatio() {
    Table t = new Table();
    t.put(EnsembleWorkload.THROUGHPUT, "ops/s", Better.HIGHER, "corral", 3000);
    t.put(EnsembleWorkload.THROUGHPUT, "ops/s", Better.HIGHER, "zookeeper", 1500);
    t.put(EnsembleWorkload.FAILOVER, EnsembleWorkload.FIRST, Better.LOWER, "corral", 1500);
    t.put(EnsembleWorkload.FAILOVER, EnsembleWorkload.FIRST, Better.LOWER, "zookeeper", 600);
    t.put(EnsembleWorkload.STABILITY, "spurious leader changes in 60 s of load", Better.LOWER, "corral", 2);
    t.put(EnsembleWorkload.STABILITY, "spurious leader changes in 60 s of load", Better.LOWER, "zookeeper", 1);
    Report report = new Report(t, List.of("corral", "zookeeper"));
    String md = report.markdownTable();
    assertTrue(md.contains("| -> first write, median ms ↓ | 1,500.0 | 600.0 | 2.50x ✗ |"), md);
    assertTrue(md.contains("| spurious leader changes in 60 s of load ↓ | 2 | 1 | — |"), md);
    List<Report.Target> targets = report.targets();
    assertEquals("met", find(targets, "W6 ensemble write throughput").verdict());
    assertEquals("MISSED", find(targets, "W6 leader kill").verdict());
  }

  @Test
  void eachTrialIsListedInOrder() {
    Samples s = new Samples();
    s.add(1_234_500_000L);
    s.add(812_000_000L);
    assertEquals("1,234.5 · 812.0", EnsembleWorkload.trials(s));
  }

  @Test
  void zooKeeperSrvrAnswersGiveRoleAndEpoch() {
    Ensemble.MemberView leader = ZooKeeperSystem.parseSrvr("2", "Zookeeper version: 3.9.4\nZxid: 0x300000007\n"
        + "Mode: leader\nNode count: 5\n");
    assertEquals(new Ensemble.MemberView("2", Ensemble.Role.LEADER, 3, "2", 0x300000007L), leader);
    assertEquals(Ensemble.Role.FOLLOWER, ZooKeeperSystem.parseSrvr("1", "Zxid: 0x300000001\nMode: follower\n").role());
    assertEquals(Ensemble.Role.ELECTING,
        ZooKeeperSystem.parseSrvr("1", "This ZooKeeper instance is not currently serving requests\n").role());
  }

  @Test
  void corralElectionTimeoutsParse() {
    assertEquals(new CorralSystem.ElectionTimeout(java.time.Duration.ofMillis(300), java.time.Duration.ofMillis(600)),
        BenchMain.parse(new String[] {"corral", "--corral-election-timeout", "300ms-600ms"}).corralElectionTimeout());
    assertEquals("1000ms-2000ms", CorralSystem.ElectionTimeout.parse("1s-2s").toString());
    assertEquals(null, BenchMain.parse(new String[] {"corral"}).corralElectionTimeout());
    assertThrows(IllegalArgumentException.class,
        () -> CorralSystem.ElectionTimeout.parse("600ms-300ms"));
  }

  @Test
  void argumentsParse() {
    BenchMain.Options o = BenchMain.parse(new String[] {"corral", "zookeeper", "--quick", "--only", "w1,mem"});
    assertEquals(List.of("corral", "zookeeper"), o.systems());
    assertEquals("quick", o.params().name());
    assertEquals(java.util.Set.of("W1", "MEM"), o.only());
    assertEquals(List.of("corral", "zookeeper", "etcd"), BenchMain.parse(new String[] {"all"}).systems());
    assertTrue(BenchMain.parse(new String[] {"all"}).only().contains("W6"));
    assertEquals(java.util.Set.of("W6"), BenchMain.parse(new String[] {"--only", "W6"}).only());
  }

  @Test
  void anUnknownWorkloadIsRefusedByName() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> BenchMain.parse(new String[] {"corral", "--only", "W1,W9"}));
    assertTrue(e.getMessage().contains("'W9'"), e.getMessage());
    assertTrue(e.getMessage().contains("W1,W2,W3,W4,W5,W6,MEM"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> BenchMain.parse(new String[] {"--only", ""}));
  }

  @Test
  void aRunOfTheSameDayGetsTheNextFreeName(@TempDir Path out) throws IOException {
    assertEquals("2026-11-26", BenchMain.freeName(out, "2026-11-26"));
    Files.writeString(out.resolve("2026-11-26.md"), "first run");
    assertEquals("2026-11-26-2", BenchMain.freeName(out, "2026-11-26"));
    Files.createDirectories(out.resolve("2026-11-26-2"));
    assertEquals("2026-11-26-3", BenchMain.freeName(out, "2026-11-26"));
    assertEquals("2026-11-26-quick", BenchMain.freeName(out, "2026-11-26-quick"));
  }

  private static Report.Target find(List<Report.Target> targets, String prefix) {
    return targets.stream().filter(x -> x.target().startsWith(prefix)).findFirst().orElseThrow();
  }
}
