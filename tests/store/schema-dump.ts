import type { SqlQueryable } from "../../src/infrastructure/store/sql-executor.ts";

/**
 * The public schema as rows from the catalogs, in a fixed order: tables and columns (types,
 * defaults, nullability, identity), constraints and indexes as PostgreSQL prints their
 * definitions, sequences, and the migrations recorded (version and name; applied_at is when,
 * so it differs by nature). Two databases with equal dumps have the same schema.
 */
export async function dumpSchema(db: SqlQueryable): Promise<Record<string, readonly unknown[]>> {
  return {
    columns: await db.query(`
      SELECT table_name, column_name, ordinal_position, data_type, numeric_precision, numeric_scale,
             is_nullable, column_default, is_identity, identity_generation
      FROM information_schema.columns WHERE table_schema = 'public'
      ORDER BY table_name, ordinal_position`),
    constraints: await db.query(`
      SELECT conrelid::regclass::text AS table_name, conname, contype, pg_get_constraintdef(oid) AS definition
      FROM pg_constraint WHERE connamespace = 'public'::regnamespace
      ORDER BY 1, 2`),
    indexes: await db.query(`
      SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'
      ORDER BY tablename, indexname`),
    sequences: await db.query(`
      SELECT sequencename, data_type::text AS data_type, start_value::text AS start_value, increment_by::text AS increment_by
      FROM pg_sequences WHERE schemaname = 'public' ORDER BY sequencename`),
    migrations: await db.query("SELECT version, name FROM schema_migrations ORDER BY version"),
  };
}
