package dev.corral.recipes.lock;

import dev.corral.client.ConnectionLossException;
import dev.corral.client.CoordinationClient;
import dev.corral.client.Watcher;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A client that counts, for tests: calls by method name, and watch events
 * delivered to the watchers the recipes set. Everything else is the real client.
 */
final class CountingClient implements InvocationHandler {
  private final CoordinationClient delegate;
  private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
  private final AtomicInteger watchEvents = new AtomicInteger();
  private final Map<Watcher, Watcher> wrapped = Collections.synchronizedMap(new IdentityHashMap<>());
  private final CoordinationClient proxy;
  private final AtomicBoolean loseNextMultiReply = new AtomicBoolean();
  private final AtomicReference<Runnable> beforeFailingNextMulti = new AtomicReference<>();
  private static final Set<String> SERVER_CALLS = Set.of("create", "delete", "exists", "getData", "setData",
      "getChildren", "getChildrenWithStat", "multi", "sync", "addWatch", "removeWatches");

  private CountingClient(CoordinationClient delegate) {
    this.delegate = delegate;
    this.proxy = (CoordinationClient) Proxy.newProxyInstance(CoordinationClient.class.getClassLoader(),
        new Class<?>[] {CoordinationClient.class}, this);
  }

  static CountingClient wrap(CoordinationClient delegate) {
    return new CountingClient(delegate);
  }

  CoordinationClient client() {
    return proxy;
  }

  /** Calls of {@code method} (the blocking API's name, e.g. "multi", "exists") since the last reset. */
  int calls(String method) {
    AtomicInteger count = calls.get(method);
    return count == null ? 0 : count.get();
  }

  /** Calls that go to the server (not sessionId(), state(), listeners...). */
  int serverCalls() {
    return SERVER_CALLS.stream().mapToInt(this::calls).sum();
  }

  /** The next multi is run, but its reply is "lost": it throws ConnectionLossException. */
  void loseNextMultiReply() {
    loseNextMultiReply.set(true);
  }

  /**
   * The next multi is not sent: {@code meanwhile} runs (a session's end, say),
   * then it throws ConnectionLossException, as a connection lost before the
   * request went out.
   */
  void failNextMultiAfter(Runnable meanwhile) {
    beforeFailingNextMulti.set(meanwhile);
  }

  /** Watch events delivered to watchers set through this client. */
  int watchEvents() {
    return watchEvents.get();
  }

  void resetCalls() {
    calls.clear();
  }

  @Override
  public Object invoke(Object self, Method method, Object[] args) throws Throwable {
    switch (method.getName()) {
      case "equals":
        return self == args[0];
      case "hashCode":
        return System.identityHashCode(self);
      case "toString":
        return "Counting[" + delegate + "]";
      default:
        break;
    }
    if (args != null) {
      for (int i = 0; i < args.length; i++) {
        if (args[i] instanceof Watcher watcher) {
          if (method.getName().equals("removeWatches")) {
            Watcher known = wrapped.get(watcher);
            args[i] = known == null ? watcher : known;
          } else {
            args[i] = wrapped.computeIfAbsent(watcher, w -> event -> {
              watchEvents.incrementAndGet();
              w.process(event);
            });
          }
        }
      }
    }
    if (!method.isDefault()) {
      calls.computeIfAbsent(method.getName(), name -> new AtomicInteger()).incrementAndGet();
    }
    try {
      if (method.isDefault()) {
        return InvocationHandler.invokeDefault(self, method, args);
      }
      Runnable meanwhile = method.getName().equals("multi") ? beforeFailingNextMulti.getAndSet(null) : null;
      if (meanwhile != null) {
        meanwhile.run();
        throw new ConnectionLossException("the connection was lost before the request went out (test)", null);
      }
      Object result = method.invoke(delegate, args);
      if (method.getName().equals("multi") && loseNextMultiReply.compareAndSet(true, false)) {
        throw new ConnectionLossException("the reply was lost (test)", null);
      }
      return result;
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
