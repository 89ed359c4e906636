package dev.corral.recipes.lock;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.client.CoordinationClient;
import dev.corral.client.Paths;
import dev.corral.recipes.shared.SharedCount;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Never more than maxLeases out; timed acquires leave nothing; any returned lease frees a slot. */
class InterProcessSemaphoreV2Test extends ServerTest {
  private static final int MAX_LEASES = 3;

  private final List<SharedCount> counts = new ArrayList<>();

  @AfterEach
  void closeCounts() {
    counts.forEach(SharedCount::close);
  }

  private InterProcessSemaphoreV2 newSemaphore() throws InterruptedException {
    return new InterProcessSemaphoreV2(clients.newClient(), path, MAX_LEASES);
  }

  private String leasesPath() {
    return Paths.join(path, "leases");
  }

  @Test
  void neverMoreThanMaxLeasesAreOutUnderContention() throws Exception {
    AtomicInteger out = new AtomicInteger();
    AtomicInteger mostOut = new AtomicInteger();
    List<Future<?>> contenders = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      InterProcessSemaphoreV2 semaphore = newSemaphore();
      contenders.add(clients.threads().submit(() -> {
        for (int k = 0; k < 15; k++) {
          try (Lease lease = semaphore.acquire(seconds(PATIENCE), TimeUnit.SECONDS).orElseThrow()) {
            int now = out.incrementAndGet();
            mostOut.accumulateAndGet(now, Math::max);
            Thread.yield();
            out.decrementAndGet();
          }
        }
        return null;
      }));
    }
    for (Future<?> contender : contenders) {
      contender.get(5, TimeUnit.MINUTES);
    }
    assertTrue(mostOut.get() <= MAX_LEASES, "at most " + MAX_LEASES + " leases out, saw " + mostOut.get());
    assertEquals(0, Clients.lockNodesUnder(clients.newClient(), path));
  }

  @Test
  void participantNodesAreTheLeaseNodesNamesInOrder() throws Exception {
    InterProcessSemaphoreV2 semaphore = newSemaphore();
    assertEquals(List.of(), semaphore.getParticipantNodes());
    Lease first = semaphore.acquire();
    Lease second = semaphore.acquire();
    assertEquals(List.of(first.getNodeName(), second.getNodeName()), semaphore.getParticipantNodes(),
        "a lease's node name is one of the participant nodes, as in Curator");
    first.close();
    assertEquals(List.of(second.getNodeName()), semaphore.getParticipantNodes());
    second.close();
  }

  @Test
  void timedAcquireReturnsEmptyAndLeavesNoNode() throws Exception {
    CoordinationClient observer = clients.newClient();
    InterProcessSemaphoreV2 holder = newSemaphore();
    InterProcessSemaphoreV2 waiter = newSemaphore();
    Collection<Lease> all = holder.acquire(MAX_LEASES);
    assertEquals(MAX_LEASES, all.size());
    assertEquals(Optional.empty(), waiter.acquire(300, TimeUnit.MILLISECONDS));
    assertEquals(MAX_LEASES, Clients.lockNodesUnder(observer, path), "only the holder's leases are left");
    holder.returnAll(all);
    assertTrue(waiter.acquire(seconds(PATIENCE), TimeUnit.SECONDS).isPresent());
  }

  @Test
  void severalLeasesAreTakenTogetherOrNotAtAll() throws Exception {
    CoordinationClient observer = clients.newClient();
    InterProcessSemaphoreV2 first = newSemaphore();
    InterProcessSemaphoreV2 second = newSemaphore();
    Collection<Lease> two = first.acquire(2);
    assertEquals(Optional.empty(), second.acquire(2, 300, TimeUnit.MILLISECONDS));
    assertEquals(2, Clients.lockNodesUnder(observer, path), "the one lease taken part-way was given back");
    first.returnAll(two);
    Collection<Lease> taken = second.acquire(2, seconds(PATIENCE), TimeUnit.SECONDS).orElseThrow();
    assertEquals(2, taken.size());
    second.returnAll(taken);
    assertThrows(IllegalArgumentException.class, () -> second.acquire(MAX_LEASES + 1));
  }

  @Test
  void aReturnedLeaseFreesASlotWhicheverLeaseItWas() throws Exception {
    List<Lease> held = new ArrayList<>();
    for (int i = 0; i < MAX_LEASES; i++) {
      held.add(newSemaphore().acquire());
    }
    InterProcessSemaphoreV2 waiter = newSemaphore();
    Future<Lease> waiting = clients.threads().submit(() -> waiter.acquire());
    CoordinationClient observer = clients.newClient();
    await().atMost(PATIENCE).until(() -> Clients.lockNodesUnder(observer, leasesPath()) == MAX_LEASES + 1);
    held.get(1).close(); // neither the first nor the last
    Lease lease = waiting.get(seconds(PATIENCE), TimeUnit.SECONDS);
    lease.close();
    lease.close(); // closing twice is harmless
    held.get(0).close();
    held.get(2).close();
  }

  @Test
  void aLeaseReturnedThroughAnotherSemaphoreObjectIsReturned() throws Exception {
    CoordinationClient client = clients.newClient();
    Lease lease = new InterProcessSemaphoreV2(client, path, 1).acquire();

    new InterProcessSemaphoreV2(client, path, 1).returnLease(lease); // as Curator allows: a new object per call

    assertTrue(new InterProcessSemaphoreV2(clients.newClient(), path, 1).acquire(seconds(PATIENCE), TimeUnit.SECONDS)
        .isPresent(), "the one slot is free");
  }

  @Test
  void leasesOfAnExpiredSessionAreFreed() throws Exception {
    CoordinationClient holderClient = clients.newClient();
    InterProcessSemaphoreV2 holder = new InterProcessSemaphoreV2(holderClient, path, 1);
    InterProcessSemaphoreV2 waiter = new InterProcessSemaphoreV2(clients.newClient(), path, 1);
    holder.acquire();
    Future<Lease> waiting = clients.threads().submit(() -> waiter.acquire());
    await().atMost(PATIENCE).until(() -> Clients.lockNodesUnder(holderClient, leasesPath()) == 2);
    server.expireSession(holderClient.sessionId());
    waiting.get(seconds(PATIENCE), TimeUnit.SECONDS).close();
    await().atMost(PATIENCE).until(() -> holder.state() == LockState.LOST);
  }

  @Test
  void leaseNodesCarryTheSemaphoreNodeData() throws Exception {
    InterProcessSemaphoreV2 semaphore = newSemaphore();
    semaphore.setNodeData("worker-7".getBytes(StandardCharsets.UTF_8));
    try (Lease lease = semaphore.acquire()) {
      assertArrayEquals("worker-7".getBytes(StandardCharsets.UTF_8), lease.getData());
      assertTrue(clients.newClient().exists(Paths.join(leasesPath(), lease.getNodeName())).isPresent());
      assertEquals(List.of(lease.getNodeName()), semaphore.getParticipantNodes());
    }
    assertEquals(LockState.NOT_HELD, semaphore.state());
  }

  /** A semaphore sized by a count at {@code countPath}, each on a client and SharedCount of its own (as in Curator). */
  private InterProcessSemaphoreV2 countedSemaphore(String countPath) throws Exception {
    SharedCount count = new SharedCount(clients.newClient(), countPath, 1);
    count.start();
    counts.add(count);
    return new InterProcessSemaphoreV2(clients.newClient(), path, count);
  }

  @Test
  void aSharedCountSizesTheSemaphoreAndAWaiterGetsInOnceItGrows() throws Exception {
    String countPath = path + "-count";
    InterProcessSemaphoreV2 holder = countedSemaphore(countPath);
    InterProcessSemaphoreV2 waiter = countedSemaphore(countPath);
    Lease held = holder.acquire();
    assertEquals(Optional.empty(), waiter.acquire(0, TimeUnit.SECONDS), "one lease, out already");
    Future<Lease> waiting = clients.threads().submit(() -> waiter.acquire());
    CoordinationClient observer = clients.newClient();
    await().atMost(PATIENCE).until(() -> Clients.lockNodesUnder(observer, leasesPath()) == 2);

    SharedCount setter = new SharedCount(observer, countPath, 1);
    setter.start();
    counts.add(setter);
    setter.setCount(2);

    Lease second = waiting.get(seconds(PATIENCE), TimeUnit.SECONDS); // the first lease is still out
    assertEquals(2, waiter.getParticipantNodes().size());
    second.close();
    held.close();
  }

  @Test
  void leasesOutStayOutWhenTheSharedCountShrinksAndNewOnesWaitBelowIt() throws Exception {
    String countPath = path + "-count";
    InterProcessSemaphoreV2 holder = countedSemaphore(countPath);
    InterProcessSemaphoreV2 other = countedSemaphore(countPath);
    SharedCount setter = new SharedCount(clients.newClient(), countPath, 1);
    setter.start();
    counts.add(setter);
    setter.setCount(2);
    await().atMost(PATIENCE).until(() -> counts.stream().allMatch(c -> c.getCount() == 2));
    Collection<Lease> two = holder.acquire(2);

    setter.setCount(1);
    await().atMost(PATIENCE).until(() -> counts.stream().allMatch(c -> c.getCount() == 1));
    assertEquals(2, holder.getParticipantNodes().size(), "both leases stay out");
    Lease[] leases = two.toArray(Lease[]::new);
    leases[0].close();
    assertEquals(Optional.empty(), other.acquire(0, TimeUnit.SECONDS), "one out is the count: no room");
    leases[1].close();
    other.acquire(seconds(PATIENCE), TimeUnit.SECONDS).orElseThrow().close();
    assertEquals(List.of(), other.getParticipantNodes());
  }
}
