/**
 * Runs Stoker loaders on the ranks of a Spark barrier stage: the entry point, the rank plan and the
 * row-to-column writers. Depends on loader-core; Spark itself is provided by the cluster.
 */
package dev.stoker.spark;
