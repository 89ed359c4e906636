package dev.corral.recipes.election;

import dev.corral.client.CoordinationClient;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real client that counts, for tests, its calls to multi (the recipes read
 * their queue with one) and the watches left through it by exists or
 * addWatch. Everything else is the real client.
 */
final class CountingClient {
  final AtomicInteger multis = new AtomicInteger();
  final AtomicInteger watches = new AtomicInteger();
  private final CoordinationClient proxy;

  CountingClient(CoordinationClient delegate) {
    this.proxy = (CoordinationClient) Proxy.newProxyInstance(CoordinationClient.class.getClassLoader(),
        new Class<?>[] {CoordinationClient.class}, (self, method, args) -> {
          if (method.getName().equals("multi")) {
            multis.incrementAndGet();
          }
          try {
            Object result = method.invoke(delegate, args);
            if (method.getName().equals("exists") && args.length == 2 || method.getName().equals("addWatch")) {
              watches.incrementAndGet();
            }
            return result;
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
  }

  CoordinationClient client() {
    return proxy;
  }
}
