package dev.corral.bench;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.election.LeaderKey;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * One leader-latch contender in its own JVM (W4), so that the harness can
 * {@code kill -9} it. Arguments: system connectString path id sessionTimeoutMs.
 * Tells on stdout: {@code JOINED}, {@code LEADER <nanoTime>},
 * {@code NOTLEADER <nanoTime>}, {@code CLOSING <nanoTime>}, {@code CLOSED};
 * obeys on stdin: {@code close} (the latch), {@code rejoin} (a new latch),
 * {@code exit}. System.nanoTime() is CLOCK_MONOTONIC on Linux: comparable
 * across JVMs of one machine.
 */
public final class Contender {
  private Contender() {}

  /** One system's latch. */
  interface Latch {
    void start() throws Exception;

    void close() throws Exception;
  }

  static synchronized void say(String line) {
    System.out.println(line);
    System.out.flush();
  }

  public static void main(String[] args) throws Exception {
    String system = args[0];
    String connect = args[1];
    String path = args[2];
    String id = args[3];
    int timeoutMs = Integer.parseInt(args[4]);
    AutoCloseable session;
    java.util.function.Supplier<Latch> latches;
    switch (system) {
      case "corral" -> {
        dev.corral.client.grpc.CorralClient client = dev.corral.client.grpc.CorralClient.builder()
            .connectString(connect).sessionTimeout(Duration.ofMillis(timeoutMs)).build();
        if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
          throw new IllegalStateException("no session");
        }
        session = client;
        latches = () -> new Latch() {
          final dev.corral.recipes.election.LeaderLatch latch =
              new dev.corral.recipes.election.LeaderLatch(client, path, id);

          @Override
          public void start() {
            latch.addListener(new dev.corral.recipes.election.LeaderLatchListener() {
              @Override
              public void isLeader() {
                say("LEADER " + System.nanoTime());
              }

              @Override
              public void notLeader() {
                say("NOTLEADER " + System.nanoTime());
              }
            });
            latch.start();
          }

          @Override
          public void close() {
            latch.close();
          }
        };
      }
      case "zookeeper" -> {
        CuratorFramework curator = CuratorFrameworkFactory.builder().connectString(connect)
            .sessionTimeoutMs(timeoutMs).connectionTimeoutMs(timeoutMs)
            .retryPolicy(new ExponentialBackoffRetry(100, 5)).build();
        curator.start();
        if (!curator.blockUntilConnected(30, TimeUnit.SECONDS)) {
          throw new IllegalStateException("no session");
        }
        session = curator;
        latches = () -> new Latch() {
          final org.apache.curator.framework.recipes.leader.LeaderLatch latch =
              new org.apache.curator.framework.recipes.leader.LeaderLatch(curator, path, id);

          @Override
          public void start() throws Exception {
            latch.addListener(new org.apache.curator.framework.recipes.leader.LeaderLatchListener() {
              @Override
              public void isLeader() {
                say("LEADER " + System.nanoTime());
              }

              @Override
              public void notLeader() {
                say("NOTLEADER " + System.nanoTime());
              }
            });
            latch.start();
          }

          @Override
          public void close() throws Exception {
            latch.close();
          }
        };
      }
      case "etcd" -> {
        Client client = Client.builder().endpoints(connect.split(",")).build();
        EtcdSystem.Session lease = new EtcdSystem.Session(client, Math.max(2, (timeoutMs + 999) / 1000));
        session = () -> {
          lease.close();
          client.close();
        };
        ByteSequence name = EtcdSystem.key(path);
        latches = () -> new Latch() {
          volatile CompletableFuture<io.etcd.jetcd.election.CampaignResponse> campaign;

          @Override
          public void start() {
            campaign = client.getElectionClient().campaign(name, lease.leaseId,
                ByteSequence.from(id, StandardCharsets.UTF_8));
            campaign.thenAccept(r -> say("LEADER " + System.nanoTime()));
          }

          @Override
          public void close() throws Exception {
            LeaderKey key = campaign.getNow(null) == null ? null : campaign.getNow(null).getLeader();
            if (key != null) {
              client.getElectionClient().resign(key).get(30, TimeUnit.SECONDS);
            } else {
              campaign.cancel(true);
            }
          }
        };
      }
      default -> throw new IllegalArgumentException("unknown system " + system);
    }
    Latch latch = latches.get();
    latch.start();
    say("JOINED");
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      switch (line.trim()) {
        case "close" -> {
          say("CLOSING " + System.nanoTime());
          latch.close();
          say("CLOSED");
        }
        case "rejoin" -> {
          latch = latches.get();
          latch.start();
          say("JOINED");
        }
        case "exit" -> {
          try {
            latch.close();
          } catch (Exception ignored) {
            // exiting anyway
          }
          session.close();
          System.exit(0);
        }
        default -> say("UNKNOWN " + line);
      }
    }
    // the harness went away: leave
    session.close();
    System.exit(0);
  }
}
