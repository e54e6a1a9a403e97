/**
 * Facts of the cluster and of Spark itself, checked or read on the driver: the task slots a barrier
 * stage of {@code worldSize} ranks needs at once, whether Spark started an attempt of such a stage
 * with every rank ({@link dev.stoker.spark.cluster.RankLaunch}, asked on the executors), and
 * Spark's Scala collections as Java lists on both Scala versions ({@link
 * dev.stoker.spark.cluster.ScalaSeqs}). A leaf: the runner, the balancing, the progress listeners
 * and the Python ranks use it.
 */
package dev.stoker.spark.cluster;
