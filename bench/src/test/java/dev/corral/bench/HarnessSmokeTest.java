package dev.corral.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * The harness end to end against Corral only, tiny sizes (about 20 s, and about a minute
 * for W6's ensemble). Opt-in, so that {@code mvn verify} runs no benchmark:
 * {@code mvn -pl bench test -Dbench.smoke=true}.
 */
@EnabledIfSystemProperty(named = "bench.smoke", matches = "true")
class HarnessSmokeTest {
  @Test
  @Timeout(value = 50)
  void runsTheWorkloadsAgainstCorralAndStopsItsServer(@TempDir Path dir) throws Exception {
    BenchMain.Options options = BenchMain.parse(new String[] {"corral", "--tiny", "--only", "W1,W2,W3,W5",
        "--out", dir.resolve("results").toString(), "--work", dir.resolve("work").toString()});
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    BenchMain.Outcome outcome = BenchMain.run(options, new PrintStream(out, true, StandardCharsets.UTF_8));
    String log = out.toString(StandardCharsets.UTF_8);
    assertEquals(0, outcome.failures(), log);
    assertEquals(0, Procs.alive(), "every started process is stopped");
    String md = Files.readString(outcome.markdown());
    assertTrue(md.contains("| W1 create, 8 clients |"), md);
    assertEquals(0.0, outcome.table().find("W3 contended lock, 16 sessions", "violations").value("corral"));
    assertFalse(Double.isNaN(outcome.table().find("W5 watch latency (setData -> callback)", "p50 ms").value("corral")));
    // how long it lasts is PlateauTest's (on a clock of its own); here: the warm-up ran and is reported
    assertFalse(Double.isNaN(outcome.table().find(Workloads.W2_WARM_UP, Workloads.W2_WARM_UP_SECONDS).value("corral")),
        log);
    assertFalse(Double.isNaN(outcome.table().find(Workloads.W5_WARM_UP, Workloads.W5_WARM_UP_SECONDS).value("corral")),
        log);
    assertTrue(Files.exists(outcome.markdown().resolveSibling(outcome.markdown().getFileName().toString()
        .replace(".md", "")).resolve("raw").resolve("summary.csv")));
  }

  @Test
  @Timeout(value = 240)
  void runsW6AgainstACorralEnsembleAndStopsEveryMember(@TempDir Path dir) throws Exception {
    BenchMain.Options options = BenchMain.parse(new String[] {"corral", "--tiny", "--only", "W6",
        "--corral-election-timeout", "300ms-600ms",
        "--out", dir.resolve("results").toString(), "--work", dir.resolve("work").toString()});
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    BenchMain.Outcome outcome = BenchMain.run(options, new PrintStream(out, true, StandardCharsets.UTF_8));
    String log = out.toString(StandardCharsets.UTF_8);
    assertEquals(0, outcome.failures(), log);
    assertEquals(0, Procs.alive(), "every started process is stopped");
    assertFalse(Double.isNaN(outcome.table().find(EnsembleWorkload.THROUGHPUT, "ops/s").value("corral")), log);
    double warmUpSeconds = outcome.table().find(EnsembleWorkload.WARM_UP, EnsembleWorkload.WARM_UP_SECONDS)
        .value("corral");
    assertTrue(warmUpSeconds >= Params.tiny().w6WarmMs() / 1e3, log);
    assertFalse(Double.isNaN(outcome.table().find(EnsembleWorkload.FAILOVER, EnsembleWorkload.FIRST).value("corral")),
        log);
    assertTrue(Files.readString(outcome.markdown()).contains("300ms-600ms"), log);
  }
}
