import SqliteDatabase from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { preparedOnce } from "../../src/store/sqlite-statements.js";

describe("SQLite statements prepared once", () => {
  const opened: SqliteDatabase.Database[] = [];
  const open = () => {
    const sqlite = new SqliteDatabase(":memory:");
    opened.push(sqlite);
    return sqlite;
  };
  afterEach(() => {
    for (const sqlite of opened.splice(0)) if (sqlite.open) sqlite.close();
  });

  it("prepares a query text once and runs it again with other parameters", () => {
    const sqlite = open();
    const db = preparedOnce(sqlite);
    db.prepare("create table t (a integer)").run([]);
    const insert = db.prepare("insert into t (a) values (?)");
    insert.run([1]);
    expect(db.prepare("insert into t (a) values (?)")).toBe(insert);
    db.prepare("insert into t (a) values (?)").run([2]);
    expect(db.prepare("select a from t order by a").all([])).toEqual([{ a: 1 }, { a: 2 }]);
  });

  it("keeps at most the given number, dropping the least recently used", () => {
    const db = preparedOnce(open(), 2);
    const one = db.prepare("select 1");
    const two = db.prepare("select 2");
    expect(db.prepare("select 1")).toBe(one);
    db.prepare("select 3");
    expect(db.prepare("select 1")).toBe(one);
    expect(db.prepare("select 2")).not.toBe(two);
  });

  it("sees a column added after the statement was prepared", () => {
    const db = preparedOnce(open());
    db.prepare("create table t (a integer)").run([]);
    db.prepare("insert into t (a) values (1)").run([]);
    expect(db.prepare("select * from t").all([])).toEqual([{ a: 1 }]);
    db.prepare("alter table t add column b text default 'x'").run([]);
    expect(db.prepare("select * from t").all([])).toEqual([{ a: 1, b: "x" }]);
  });

  it("closes the database", () => {
    const sqlite = open();
    preparedOnce(sqlite).close();
    expect(sqlite.open).toBe(false);
  });
});
