package dev.corral.recipes.election;

import dev.corral.client.AsyncCoordinationClient;
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

/**
 * A client that keeps track, for tests, of the one-shot watches recipes leave
 * through it: added when a read with a watcher succeeds, gone when the watch
 * fires or is removed (blocking or async). Everything else is the real client.
 */
final class WatchTrackingClient {
  /**
   * The methods whose Watcher argument is a watch (a Signal is also a connection state listener); addWatch
   * as the recipes use it, in FIRST mode, whose watch is one-shot too.
   */
  private static final Set<String> WATCHING =
      Set.of("exists", "getData", "getChildren", "getChildrenWithStat", "addWatch", "removeWatches");

  private final CoordinationClient delegate;
  private final Set<String> outstanding = ConcurrentHashMap.newKeySet();
  private final Map<Watcher, Watcher> wrapped = Collections.synchronizedMap(new IdentityHashMap<>());
  private final CoordinationClient proxy;

  WatchTrackingClient(CoordinationClient delegate) {
    this.delegate = delegate;
    this.proxy = (CoordinationClient) Proxy.newProxyInstance(CoordinationClient.class.getClassLoader(),
        new Class<?>[] {CoordinationClient.class}, this::invokeBlocking);
  }

  CoordinationClient client() {
    return proxy;
  }

  /** "path watcher@id" for every watch left and neither fired nor removed. */
  Set<String> outstanding() {
    return Set.copyOf(outstanding);
  }

  private static String key(String path, Watcher watcher) {
    return path + " " + System.identityHashCode(watcher);
  }

  private Object invokeBlocking(Object self, Method method, Object[] args) throws Throwable {
    if (method.getName().equals("async")) {
      AsyncCoordinationClient async = delegate.async();
      return Proxy.newProxyInstance(AsyncCoordinationClient.class.getClassLoader(),
          new Class<?>[] {AsyncCoordinationClient.class}, (p, m, a) -> invokeAsync(async, m, a));
    }
    if (method.getDeclaringClass() == Object.class) {
      return method.getName().equals("equals") ? self == args[0]
          : method.getName().equals("hashCode") ? System.identityHashCode(self) : "Tracking[" + delegate + "]";
    }
    Watcher original = WATCHING.contains(method.getName()) ? watcherIn(args) : null;
    if (original != null) {
      String path = (String) args[0];
      if (method.getName().equals("removeWatches")) {
        outstanding.remove(key(path, original));
      } else {
        replaceWatcher(args, original);
      }
      Object result = call(method, delegate, args);
      if (!method.getName().equals("removeWatches")) {
        outstanding.add(key(path, original));
      }
      return result;
    }
    return call(method, delegate, args);
  }

  private Object invokeAsync(AsyncCoordinationClient async, Method method, Object[] args) throws Throwable {
    Watcher original = WATCHING.contains(method.getName()) ? watcherIn(args) : null;
    if (original != null && method.getName().equals("removeWatches")) {
      outstanding.remove(key((String) args[0], original));
    } else if (original != null) {
      throw new UnsupportedOperationException("async watches are not tracked");
    }
    return call(method, async, args);
  }

  private void replaceWatcher(Object[] args, Watcher original) {
    for (int i = 0; i < args.length; i++) {
      if (args[i] == original) {
        args[i] = wrapped.computeIfAbsent(original, w -> event -> {
          outstanding.remove(key(event.path(), w));
          w.process(event);
        });
      }
    }
  }

  private Watcher watcherIn(Object[] args) {
    if (args == null) {
      return null;
    }
    for (Object arg : args) {
      if (arg instanceof Watcher watcher) {
        return watcher;
      }
    }
    return null;
  }

  private Object call(Method method, Object target, Object[] args) throws Throwable {
    if (method.getName().equals("removeWatches")) {
      for (int i = 0; i < args.length; i++) {
        if (args[i] instanceof Watcher watcher && wrapped.containsKey(watcher)) {
          args[i] = wrapped.get(watcher);
        }
      }
    }
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
