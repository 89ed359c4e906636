package dev.corral.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A workload's rounds run in the sessions its warm-up opened (a new session per
 * round measured the JIT re-compiling after a new connection), and none is left
 * open: not after the report, nor when a workload failed before it (a real
 * Corral server, tiny sizes).
 */
@Timeout(120)
class KeptSessionsTest {
  @TempDir
  Path dir;
  private final AtomicInteger opened = new AtomicInteger();
  private final AtomicInteger closed = new AtomicInteger();
  private BenchSystem.ServerHandle server;
  private Workloads workloads;

  @BeforeEach
  void startServer() throws Exception {
    BenchSystem corral = new CorralSystem(null, null);
    server = corral.start(dir.resolve("server"));
    workloads = new Workloads(counting(corral), server, Params.tiny(), new Table(),
        dir.resolve("work"), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
  }

  @AfterEach
  void stopServer() {
    workloads.close();
    server.close();
  }

  @Test
  void w2RoundsRunInTheSessionItsWarmUpOpenedAndItsReportClosesIt() throws Exception {
    workloads.w2WarmUp();
    workloads.w2Round(1);
    workloads.w2Round(2);
    assertEquals(1, opened.get(), "one session for the warm-up and every round");
    assertEquals(0, closed.get());
    workloads.w2Report();
    assertEquals(1, closed.get());
  }

  @Test
  void w1KeepsOneSetOfSessionsPerClientCount() throws Exception {
    workloads.w1WarmUp();
    workloads.w1Round(1);
    workloads.w1Round(2);
    assertEquals(1 + 8, opened.get(), "one set of 1 and one of 8");
    workloads.w1Report();
    assertEquals(1 + 8, closed.get());
  }

  @Test
  void sessionsOfAWorkloadThatNeverReachedItsReportCloseWithTheWorkloads() throws Exception {
    workloads.w5WarmUp();
    workloads.w5Round(1);
    assertEquals(2, opened.get(), "the writer and the watcher");
    workloads.close();
    assertEquals(2, closed.get());
  }

  /** {@code system}, counting the sessions it opens and those closed. */
  private BenchSystem counting(BenchSystem system) {
    return (BenchSystem) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {BenchSystem.class},
        (proxy, method, args) -> {
          Object result = invoke(system, method, args);
          if (method.getName().equals("connect")) {
            opened.incrementAndGet();
            return countingCloses((BenchSystem.Client) result);
          }
          return result;
        });
  }

  private BenchSystem.Client countingCloses(BenchSystem.Client client) {
    return (BenchSystem.Client) Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {BenchSystem.Client.class}, (proxy, method, args) -> {
          if (method.getName().equals("close") && method.getParameterCount() == 0) {
            closed.incrementAndGet();
          }
          return invoke(client, method, args);
        });
  }

  private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
