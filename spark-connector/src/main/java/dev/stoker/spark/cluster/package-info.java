/**
 * What the cluster can run, checked on the driver before any work: the task slots a barrier stage
 * of {@code worldSize} ranks needs at once. A leaf: the runner and the Python ranks both check
 * through it.
 */
package dev.stoker.spark.cluster;
