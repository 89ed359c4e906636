package dev.corral.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * Every process the harness starts, so that exactly those are stopped: by
 * {@link #stop}, and by a shutdown hook on any exit (failure, Ctrl-C). Nothing
 * is ever killed by name, only by the {@link Process} handle of a process
 * started here (its PID).
 */
public final class Procs {
  private static final List<Process> STARTED = new CopyOnWriteArrayList<>();

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(Procs::stopAll, "bench-stop-processes"));
  }

  private Procs() {}

  /** Starts {@code builder}'s process and registers it for stopping. */
  public static Process start(ProcessBuilder builder) throws IOException {
    synchronized (STARTED) {
      Process process = builder.start();
      STARTED.add(process);
      return process;
    }
  }

  /** SIGTERM, then SIGKILL after {@code graceMs}; waits for the exit. Only for processes started here. */
  public static void stop(Process process, long graceMs) {
    if (process == null) {
      return;
    }
    try {
      if (process.isAlive()) {
        process.destroy();
        if (!process.waitFor(graceMs, TimeUnit.MILLISECONDS)) {
          process.destroyForcibly();
          process.waitFor(10, TimeUnit.SECONDS);
        }
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    } finally {
      STARTED.remove(process);
    }
  }

  /** SIGKILL (kill -9) and wait for the exit. Only for processes started here. */
  public static void kill9(Process process) {
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      STARTED.remove(process);
    }
  }

  /** Stops every process still registered (the shutdown hook; also safe to call directly). */
  public static void stopAll() {
    List<Process> left = new ArrayList<>(STARTED);
    for (Process p : left) {
      if (p.isAlive()) {
        System.err.println("bench: stopping pid " + p.pid());
        p.destroy();
      }
    }
    for (Process p : left) {
      try {
        if (!p.waitFor(5, TimeUnit.SECONDS)) {
          p.destroyForcibly();
          p.waitFor(5, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        p.destroyForcibly();
      }
      STARTED.remove(p);
    }
  }

  /** How many registered processes are still alive (for tests). */
  public static int alive() {
    return (int) STARTED.stream().filter(Process::isAlive).count();
  }

  /** VmRSS of {@code pid} in bytes, from /proc/PID/status; -1 if unreadable. */
  public static long rssBytes(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"), StandardCharsets.UTF_8)) {
        if (line.startsWith("VmRSS:")) {
          String[] parts = line.substring(6).trim().split("\\s+");
          return Long.parseLong(parts[0]) * 1024;
        }
      }
    } catch (IOException | NumberFormatException e) {
      return -1;
    }
    return -1;
  }

  /** The java launcher of this JVM. */
  public static String javaBin() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /** Runs a short command (jcmd) and waits at most {@code timeoutMs}; true if it exited 0. */
  public static boolean runQuietly(long timeoutMs, String... command) {
    try {
      Process p = start(new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD));
      boolean done = p.waitFor(timeoutMs, TimeUnit.MILLISECONDS);
      if (!done) {
        stop(p, 1000);
        return false;
      }
      STARTED.remove(p);
      return p.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
