/**
 * Barriers over a {@link dev.corral.client.CoordinationClient}, in the shapes
 * Apache Curator users know: {@link dev.corral.recipes.barrier.DistributedBarrier}
 * (waiters block until the barrier node is removed) and
 * {@link dev.corral.recipes.barrier.DistributedDoubleBarrier} (a group enters
 * together and leaves together).
 */
package dev.corral.recipes.barrier;
