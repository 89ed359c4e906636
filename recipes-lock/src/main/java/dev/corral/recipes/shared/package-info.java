/**
 * Curator's shared values: {@link dev.corral.recipes.shared.SharedCount}, an
 * integer in a node that every process reads, watches and sets, with
 * compare-and-set by the node's version.
 */
package dev.corral.recipes.shared;
