package dev.stoker.spark.parquet;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.FileStatus;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.execution.datasources.HadoopFsRelation;
import org.apache.spark.sql.execution.datasources.LogicalRelation;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Finds where a table snapshot's data files keep its columns ({@link ColumnNames}), from what the
 * table's own Spark reader planned: Delta's metadata (a column's {@code
 * delta.columnMapping.physicalName} and {@code .id}), Iceberg's schema (a column's field id).
 * Nothing of Delta or Iceberg is linked: their public methods are called by name.
 */
final class TableColumnNames {
  static final String DELTA_PHYSICAL_NAME = "delta.columnMapping.physicalName";
  static final String DELTA_ID = "delta.columnMapping.id";

  private TableColumnNames() {}

  /**
   * Where the files of {@code rows} (a read of the table at {@code version}) keep {@code columns};
   * {@code latest} whether the columns are the table's newest schema's, not the snapshot's.
   */
  static ColumnNames of(
      TableRef table, long version, Dataset<Row> rows, List<String> columns, boolean latest)
      throws ReflectiveOperationException {
    // Delta's reader is a file relation once optimized; Iceberg's a relation of its table until
    // the scan is pushed down into it
    return table.format() == TableRef.Format.DELTA
        ? delta(rows.queryExecution().optimizedPlan(), columns)
        : iceberg(rows.queryExecution().analyzed(), version, columns, latest);
  }

  private static ColumnNames delta(LogicalPlan plan, List<String> columns)
      throws ReflectiveOperationException {
    LogicalRelation relation = find(plan, LogicalRelation.class);
    if (relation == null || !(relation.relation() instanceof HadoopFsRelation files)) {
      return ColumnNames.BY_NAME;
    }
    Object metadata = call(files.fileFormat(), "metadata");
    StructType schema = (StructType) DataType.fromJson((String) call(metadata, "schemaString"));
    Map<String, ColumnNames.FileField> fields = new LinkedHashMap<>();
    for (StructField field : schema.fields()) {
      Metadata meta = field.metadata();
      if (!meta.contains(DELTA_PHYSICAL_NAME)) {
        fields.clear(); // no column mapping
        break;
      }
      int id = meta.contains(DELTA_ID) ? (int) meta.getLong(DELTA_ID) : -1;
      fields.put(field.name(), new ColumnNames.FileField(id, meta.getString(DELTA_PHYSICAL_NAME)));
    }
    ColumnNames names =
        columns.equals(List.of(schema.fieldNames()))
            ? new ColumnNames(fields)
            : ColumnNames.BY_NAME;
    return files.partitionSchema().isEmpty() ? names : withPartitions(names, files);
  }

  /**
   * {@code names} with the values of the numeric partition columns of {@code files} in each of its
   * data files, as its file index lists them (Delta's: from the table's log).
   */
  private static ColumnNames withPartitions(ColumnNames names, HadoopFsRelation files)
      throws ReflectiveOperationException {
    StructField[] fields = files.partitionSchema().fields();
    List<ColumnNames.Partition> partitions = new ArrayList<>();
    List<Integer> positions = new ArrayList<>();
    for (int i = 0; i < fields.length; i++) {
      PrimitiveType.PrimitiveTypeName type = parquetType(fields[i].dataType());
      if (type != null) {
        partitions.add(new ColumnNames.Partition(fields[i].name(), type));
        positions.add(i);
      }
    }
    if (partitions.isEmpty()) {
      return names;
    }
    Map<String, Number[]> values = new HashMap<>();
    for (Object directory : listFiles(files.location())) {
      InternalRow row = (InternalRow) call(directory, "values");
      Number[] value = new Number[partitions.size()];
      for (int p = 0; p < value.length; p++) {
        int at = positions.get(p);
        value[p] = row.isNullAt(at) ? null : (Number) row.get(at, fields[at].dataType());
      }
      for (Object file : elements(call(directory, "files"))) {
        values.put(((FileStatus) call(file, "fileStatus")).getPath().toString(), value);
      }
    }
    return names.withPartitions(partitions, values);
  }

  /** The Parquet type of a partition column of Spark type {@code type}; null if not a number. */
  private static PrimitiveType.PrimitiveTypeName parquetType(DataType type) {
    if (type instanceof IntegerType) {
      return PrimitiveType.PrimitiveTypeName.INT32;
    } else if (type instanceof LongType) {
      return PrimitiveType.PrimitiveTypeName.INT64;
    } else if (type instanceof FloatType) {
      return PrimitiveType.PrimitiveTypeName.FLOAT;
    } else if (type instanceof DoubleType) {
      return PrimitiveType.PrimitiveTypeName.DOUBLE;
    }
    return null;
  }

  /**
   * The partition directories of {@code index} (its {@code listFiles} without filters), found by
   * name: its parameters are Scala sequences of another type on Scala 2.12 and 2.13.
   */
  private static List<Object> listFiles(Object index) throws ReflectiveOperationException {
    for (Method method : index.getClass().getMethods()) {
      if (method.getName().equals("listFiles") && method.getParameterCount() == 2) {
        Object none = scala.collection.immutable.Nil$.MODULE$;
        try {
          return elements(method.invoke(index, none, none));
        } catch (InvocationTargetException e) {
          if (e.getCause() instanceof RuntimeException runtime) {
            throw runtime;
          }
          throw e;
        }
      }
    }
    throw new NoSuchMethodException(index.getClass().getName() + ".listFiles");
  }

  private static ColumnNames iceberg(
      LogicalPlan plan, long version, List<String> columns, boolean latest)
      throws ReflectiveOperationException {
    DataSourceV2Relation relation = find(plan, DataSourceV2Relation.class);
    if (relation == null) {
      return ColumnNames.BY_NAME;
    }
    Object table = call(relation.table(), "table");
    Object schema = null;
    if (!latest) {
      Object snapshot = invoke(table, "snapshot", new Class<?>[] {long.class}, version);
      Object schemaId = snapshot == null ? null : call(snapshot, "schemaId");
      if (schemaId != null) {
        schema = ((Map<?, ?>) call(table, "schemas")).get(schemaId);
      }
    }
    if (schema == null) {
      schema = call(table, "schema");
    }
    Map<String, ColumnNames.FileField> fields = new LinkedHashMap<>();
    for (String column : columns) {
      Object field = invoke(schema, "findField", new Class<?>[] {String.class}, column);
      if (field == null) {
        return ColumnNames.BY_NAME;
      }
      fields.put(column, new ColumnNames.FileField((Integer) call(field, "fieldId"), null));
    }
    return new ColumnNames(fields);
  }

  /** The elements of a Scala sequence, whose type differs between Scala 2.12 and 2.13. */
  private static List<Object> elements(Object sequence) {
    List<Object> list = new ArrayList<>();
    scala.collection.Iterator<?> it = ((scala.collection.Iterable<?>) sequence).iterator();
    while (it.hasNext()) {
      list.add(it.next());
    }
    return list;
  }

  private static <T> T find(LogicalPlan plan, Class<T> type) {
    if (type.isInstance(plan)) {
      return type.cast(plan);
    }
    scala.collection.Iterator<LogicalPlan> children = plan.children().iterator();
    while (children.hasNext()) {
      T found = find(children.next(), type);
      if (found != null) {
        return found;
      }
    }
    return null;
  }

  private static Object call(Object owner, String method) throws ReflectiveOperationException {
    return invoke(owner, method, new Class<?>[0]);
  }

  /**
   * {@code owner.method(args)}, called through a public class or interface that declares it (the
   * implementing class may not be public, as Iceberg's snapshots are not).
   */
  private static Object invoke(Object owner, String method, Class<?>[] types, Object... args)
      throws ReflectiveOperationException {
    Method found = publicMethod(owner.getClass(), method, types);
    if (found == null) {
      throw new NoSuchMethodException(owner.getClass().getName() + "." + method);
    }
    try {
      return found.invoke(owner, args);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw e;
    }
  }

  private static Method publicMethod(Class<?> type, String name, Class<?>[] types) {
    if (type == null) {
      return null;
    }
    if (Modifier.isPublic(type.getModifiers())) {
      try {
        return type.getMethod(name, types);
      } catch (NoSuchMethodException e) {
        return null;
      }
    }
    for (Class<?> face : type.getInterfaces()) {
      Method found = publicMethod(face, name, types);
      if (found != null) {
        return found;
      }
    }
    return publicMethod(type.getSuperclass(), name, types);
  }
}
