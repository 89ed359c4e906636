package dev.corral.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A running ensemble (W6): one server process per member on 127.0.0.1, each
 * with its own data and log, registered with {@link Procs} so that exactly
 * these processes are stopped. A system supplies the members' commands and a
 * {@link Probe} that asks a member for its role; waiting for a leader, killing
 * a member with {@code kill -9} and starting it again on its data are the same
 * for every system.
 */
public final class Ensemble implements AutoCloseable {
  /** What a member says about its place in the ensemble. */
  public enum Role {
    LEADER, FOLLOWER,
    /** Answering, but neither leading nor following (an election, a restart still syncing). */
    ELECTING
  }

  /**
   * One member's view.
   *
   * @param self the member's id as the system names it (ZooKeeper's myid, Corral's member id, etcd's member ID)
   * @param role its role now
   * @param term the leader's term or epoch as this member knows it (grows with each election)
   * @param leaderId the member it follows ({@code self} for the leader); empty when it does not say
   * @param applied its last applied index or zxid: comparable between members of one ensemble
   */
  public record MemberView(String self, Role role, long term, String leaderId, long applied) {
    @Override
    public String toString() {
      return self + " " + role + " term " + term + (leaderId.isEmpty() ? "" : " leader " + leaderId)
          + " applied " + applied;
    }
  }

  /** Asks members for their views; closed with the ensemble. */
  public interface Probe extends AutoCloseable {
    /** Member {@code index}'s view, or empty if it does not answer within about a second. */
    Optional<MemberView> view(int index);

    @Override
    void close();
  }

  /** How to run one member: its command (run again, on the same data, after a kill) and its client port. */
  public record MemberSpec(String name, List<String> command, int clientPort, Path log) {
    public MemberSpec {
      command = List.copyOf(command);
    }
  }

  private final String system;
  private final List<MemberSpec> specs;
  private final String connectString;
  private final Probe probe;
  private final Process[] processes;
  private boolean closed;

  private Ensemble(String system, List<MemberSpec> specs, String connectString, Probe probe) {
    this.system = system;
    this.specs = List.copyOf(specs);
    this.connectString = connectString;
    this.probe = probe;
    this.processes = new Process[specs.size()];
  }

  /**
   * Starts every member, waits until each listens on its client port and they
   * agree on a leader; on failure every process started is stopped.
   */
  public static Ensemble start(String system, List<MemberSpec> specs, String connectString, Probe probe,
      long timeoutMs) throws Exception {
    Ensemble ensemble = new Ensemble(system, specs, connectString, probe);
    try {
      for (int i = 0; i < specs.size(); i++) {
        ensemble.launch(i);
      }
      for (int i = 0; i < specs.size(); i++) {
        ensemble.awaitListening(i, timeoutMs);
      }
      ensemble.awaitLeader(timeoutMs);
      return ensemble;
    } catch (Exception | Error e) {
      ensemble.close();
      throw e;
    }
  }

  public int size() {
    return specs.size();
  }

  /** Every member's client address, as the system's clients take them. */
  public String connectString() {
    return connectString;
  }

  /** Member {@code i}'s name ("member 1" ...), for the log. */
  public String name(int i) {
    return specs.get(i).name();
  }

  public synchronized boolean isRunning(int i) {
    return processes[i] != null && processes[i].isAlive();
  }

  public synchronized long pid(int i) {
    return processes[i] == null ? -1 : processes[i].pid();
  }

  /** Member {@code i}'s view; empty if it is down or does not answer. */
  public Optional<MemberView> view(int i) {
    return isRunning(i) ? probe.view(i) : Optional.empty();
  }

  /** Every member's view (empty for those not answering), in member order. */
  public List<Optional<MemberView>> views() {
    List<Optional<MemberView>> views = new ArrayList<>();
    for (int i = 0; i < size(); i++) {
      views.add(view(i));
    }
    return views;
  }

  /**
   * The index of the member that leads with every running member following
   * it: exactly one says LEADER, every other running member says FOLLOWER and,
   * where it names its leader, names that one at the same term.
   *
   * @throws IllegalStateException if that does not happen within {@code timeoutMs}
   */
  public int awaitLeader(long timeoutMs) throws InterruptedException {
    long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
    while (true) {
      Optional<Integer> leader = agreedLeader(views());
      if (leader.isPresent()) {
        return leader.get();
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(system + ": the members did not agree on a leader within " + timeoutMs
            + " ms\n" + describe());
      }
      Thread.sleep(50);
    }
  }

  private Optional<Integer> agreedLeader(List<Optional<MemberView>> views) {
    int leader = -1;
    for (int i = 0; i < views.size(); i++) {
      if (!isRunning(i)) {
        continue;
      }
      if (views.get(i).isEmpty()) {
        return Optional.empty();
      }
      if (views.get(i).get().role() == Role.LEADER) {
        if (leader >= 0) {
          return Optional.empty();
        }
        leader = i;
      }
    }
    if (leader < 0) {
      return Optional.empty();
    }
    MemberView lead = views.get(leader).get();
    for (int i = 0; i < views.size(); i++) {
      if (i == leader || !isRunning(i)) {
        continue;
      }
      MemberView v = views.get(i).get();
      if (v.role() != Role.FOLLOWER) {
        return Optional.empty();
      }
      if (!v.leaderId().isEmpty() && (!v.leaderId().equals(lead.self()) || v.term() != lead.term())) {
        return Optional.empty();
      }
    }
    return Optional.of(leader);
  }

  /**
   * {@code kill -9} of member {@code i}; returns once the process is gone
   * ({@code System.nanoTime()} then).
   */
  public long kill9(int i) {
    Process process;
    synchronized (this) {
      process = processes[i];
    }
    Procs.kill9(process);
    if (process.isAlive()) {
      throw new IllegalStateException(system + ": " + name(i) + " (pid " + process.pid() + ") survived SIGKILL");
    }
    return System.nanoTime();
  }

  /** Starts member {@code i} again on its data and ports; returns once it listens. */
  public void restart(int i, long timeoutMs) throws Exception {
    if (isRunning(i)) {
      throw new IllegalStateException(name(i) + " still runs");
    }
    launch(i);
    awaitListening(i, timeoutMs);
  }

  /**
   * Waits until member {@code i} follows the leader again and has applied at
   * least what the leader had applied just before (writes may go on meanwhile).
   */
  public void awaitRejoined(int i, long timeoutMs) throws InterruptedException {
    long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
    while (true) {
      Optional<Integer> leader = agreedLeader(views());
      if (leader.isPresent() && leader.get() != i) {
        Optional<MemberView> lead = view(leader.get());
        Optional<MemberView> mine = view(i);
        if (lead.isPresent() && mine.isPresent() && mine.get().role() == Role.FOLLOWER
            && mine.get().applied() >= lead.get().applied()) {
          return;
        }
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(system + ": " + name(i) + " did not rejoin within " + timeoutMs + " ms\n"
            + describe());
      }
      Thread.sleep(100);
    }
  }

  /** Each member's state and the end of its log: for failure messages. */
  public String describe() {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < size(); i++) {
      String state = !isRunning(i) ? "down" : view(i).map(MemberView::toString).orElse("not answering");
      text.append("  ").append(name(i)).append(" (pid ").append(pid(i)).append(", log ")
          .append(specs.get(i).log()).append("): ").append(state).append('\n');
      text.append(Ports.tail(specs.get(i).log(), 12).lines().map(l -> "    | " + l)
          .collect(Collectors.joining("\n"))).append('\n');
    }
    return text.toString();
  }

  /** Stops every member (SIGTERM, then SIGKILL) and the probe; harmless twice. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    for (int i = 0; i < size(); i++) {
      Procs.stop(processes[i], 15_000);
    }
    probe.close();
  }

  private void launch(int i) throws IOException {
    MemberSpec spec = specs.get(i);
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException(system + " ensemble is closed");
      }
      Files.writeString(spec.log(), "=== bench: starting " + spec.name() + " ===\n", StandardCharsets.UTF_8,
          StandardOpenOption.CREATE, StandardOpenOption.APPEND);
      processes[i] = Procs.start(new ProcessBuilder(spec.command()).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(spec.log().toFile())));
    }
  }

  private void awaitListening(int i, long timeoutMs) throws Exception {
    Process process;
    synchronized (this) {
      process = Objects.requireNonNull(processes[i]);
    }
    MemberSpec spec = specs.get(i);
    Ports.awaitListening(process, spec.clientPort(), timeoutMs, spec.log(), system + " " + spec.name());
  }
}
