/**
 * A fast all-reduce for the ranks of a barrier stage: Spark's barrier {@code allGather} sends
 * strings through the driver, a millisecond or more a call even when woken early, and carries no
 * arrays of numbers; gradients are exchanged every step. The ranks meet once through the barrier
 * context, which carries rank 0's address, every rank's ring address and a secret drawn from {@code
 * SecureRandom}, then talk over plain TCP: small arrays in a star around rank 0, which sums in rank
 * order, large ones around a ring (reduce-scatter, then all-gather), whose segments are each summed
 * in a fixed order; either way every rank gets the same bits. The secret never crosses the
 * collective's socket: each rank proves that it holds it (HMAC challenge and response, both ways),
 * and every later frame is encrypted and authenticated with AES-256-GCM under a key of its
 * connection and direction and a sequence number as nonce, so a stranger can neither join, read,
 * forge, alter nor replay a value. Strangers and slow talkers are dropped without delaying the
 * ranks; one deadline bounds the meeting. Imports nothing from Spark or the rest of the connector
 * (the JDK's cryptography and SLF4J only): the caller hands it the rendezvous and the cancellation
 * check.
 */
package dev.stoker.spark.collective;
