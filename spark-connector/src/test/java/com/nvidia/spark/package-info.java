/**
 * Test doubles named like the RAPIDS Accelerator's classes, so that its detection can be tested
 * without its jars. Nothing here is RAPIDS code.
 */
package com.nvidia.spark;
