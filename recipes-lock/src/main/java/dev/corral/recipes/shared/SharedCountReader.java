package dev.corral.recipes.shared;

import java.util.concurrent.Executor;

/** The reading side of a {@link SharedCount}, as Curator's: what a semaphore sizes its leases by. */
public interface SharedCountReader {
  /** The count as last seen. */
  int getCount();

  /** The count as last seen, with its node's version. */
  VersionedValue<Integer> getVersionedValue();

  /** Adds a listener, told on the thread that saw the change. */
  void addListener(SharedCountListener listener);

  /** Adds a listener, told on {@code executor}. */
  void addListener(SharedCountListener listener, Executor executor);

  /** Removes a listener; harmless if it was never added. */
  void removeListener(SharedCountListener listener);
}
