/**
 * Building blocks shared by Corral's recipes (and useful for your own): a
 * saturating {@link dev.corral.client.recipe.Deadline} and a
 * {@link dev.corral.client.recipe.Signal} that wakes a waiting thread on a
 * watch event or a connection state change, so no change is missed.
 */
package dev.corral.client.recipe;
