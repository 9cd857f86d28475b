"""The build's JSON and schemas → the data-for-tools page, and the files it links to.

Reads the documents and schemas the build already wrote (``json/``, ``schemas/``), the program
(its glossary, its declarations' titles, a worked example to show as a call, a catalog entry to
show as JSON) and the generated package's worked examples. Produces ``docs/datos/`` (``json/``
and ``schemas/`` as hard links or copies, ``glosario.json``) and ``docs/<data-for-tools>.md``
(``datos.md.j2``): what each file holds, with its schema, and how to use them from Python, the
command line, TypeScript and JavaScript (the generated JS package in Node and in a page, its
army rules), ``jq`` and a JSON Schema validator.
"""

from __future__ import annotations

import functools
import json
import os
import shlex
import shutil
from pathlib import Path
from types import ModuleType
from typing import Any

import jinja2

from rulebook.compiler import ir
from rulebook.compiler.emit.python.names import module_name
from rulebook.compiler.emit.site.markdown import attr, esc, highlight
from rulebook.compiler.emit.site.pages.context import SiteContext, site_file
from rulebook.compiler.support.i18n import N_, _

RULEBOOK_FOLDER = N_("<rulebook-folder>")  # how the data page's commands name the folder of the rulebook's files
OUTPUT_FOLDER = N_("<output>")  # and the folder the build writes (``-o``)


def _link_or_copy(src: str, dst: str) -> None:
    """``dst`` as a second name of ``src`` (a hard link: no bytes copied; the build never writes
    a file in place), or a copy where the file system has no hard links."""
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


@functools.lru_cache(maxsize=256)
def _data_heading(text: str) -> tuple[Any, Any, Any]:
    """``id``, ``kind`` (default "") and ``title`` of a JSON document's text; remembered, as
    ``serve`` lists the same documents after every edit."""
    try:
        obj = json.loads(text)
    except ValueError:
        obj = {}
    return obj.get("id"), obj.get("kind", ""), obj.get("title")


def publish_data(program: ir.Program, ctx: SiteContext, out_dir: Path, dest: Path) -> dict:
    """Copy json/ and schemas/ under docs/datos/, write the glossary as JSON, and
    build the view-model of the data page (its file list)."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    ctx.start_page(ctx.pages["data"])
    files = []
    for sub in ("json", "schemas"):
        if (out_dir / sub).is_dir():
            shutil.copytree(out_dir / sub, dest / sub, copy_function=_link_or_copy)
    glossary = {
        "kind": "glossary",
        "terms": [{"id": t.name, "term": t.title, "definition": t.definition, "source": t.ref} for t in ctx.terms],
    }
    (dest / f"{site_file('glossary')}.json").write_text(json.dumps(glossary, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    for path in sorted((dest / "json").glob("*.json")) if (dest / "json").is_dir() else []:
        doc_id, kind, title = _data_heading(path.read_text(encoding="utf-8"))
        schema = dest / "schemas" / f"{path.stem}.schema.json"
        name = doc_id or path.stem
        files.append({
            "name": esc(path.name),
            "href": f"{dest.name}/json/{path.name}",
            "schema": f"{dest.name}/schemas/{schema.name}" if schema.exists() else None,
            "schema_name": esc(schema.name),
            "kind": esc(kind),
            "title": ctx.a(title or name, ctx.href(name) if name in program.decls else None),
        })
    procedures = sorted((dest / "schemas" / "procedures").glob("*.schema.json")) if (dest / "schemas" / "procedures").is_dir() else []
    proc_schemas: dict[str, dict[str, str]] = {}
    for path in procedures:
        pname, _, role = path.name.removesuffix(".schema.json").rpartition(".")
        proc_schemas.setdefault(pname, {})[role] = f"{dest.name}/schemas/procedures/{path.name}"
    proc_rows = [
        {"title": ctx.a(ctx.title_of(pn), ctx.href(pn)), "name": attr(pn), "input": r.get("input"), "result": r.get("result")}
        for pn, r in proc_schemas.items()
    ]
    return {"files": files, "procedures": proc_rows, "data_folder": dest.name, "glossary_file": f"{site_file('glossary')}.json"}


def _json_scalar(v) -> bool:
    return isinstance(v, (bool, int, str)) or v is None


def _typical_call(program: ir.Program, package: ModuleType) -> tuple[str, dict] | None:
    """A worked example to show as a call: JSON-shaped inputs (about four), no expected error."""
    calls = [
        (ex.procedure, generated.inputs)
        for ex, generated in zip(program.examples, package.examples.EXAMPLES)
        if ex.expected_error is None and generated.inputs and all(_json_scalar(v) for v in generated.inputs.values())
    ]
    return min(calls, key=lambda call: abs(len(call[1]) - 4), default=None)


def _typescript(program: ir.Program, output: str, proc: str, inputs: dict) -> str:
    """The TypeScript snippet (Node, from the folder that holds the output folder): a procedure
    of the JS package, exact and sampled, and (with armies) a roster checked by ``armies.js``.
    It type-checks with ``tsc --strict`` against the generated ``index.d.ts`` and ``armies.d.ts``."""
    exact_note, sampled_note = _("exact distribution; probability is “n/d”"), _("one resolution, with seed 1")
    lines = [f"import {{ {proc} }} from {json.dumps(f'./{output}/js/index.js')};"]
    if program.armies:
        lines.append(f"import {{ ARMY_IDS, validateRoster }} from {json.dumps(f'./{output}/js/armies.js')};")
    lines += [
        "",
        f"const input = {json.dumps(inputs, ensure_ascii=False)} as const;",
        f"const answer = {proc}(input);  // {exact_note}",
        "for (const { outcome, probability } of answer.distribution) console.log(outcome, probability);",
        f"console.log({proc}(input, {{ seed: 1 }}).result);  // {sampled_note}",
    ]
    if program.armies:
        rulebook = program.rulebook.name if program.rulebook else ""
        roster_note = _("a roster with no units: illegal, and the report says why")
        lines += [
            "",
            f"const report = validateRoster({{ format: 1, rulebook: {json.dumps(rulebook)}, army: ARMY_IDS[0], units: [] }});  // {roster_note}",
            "console.log(report.legal, report.errors.map((issue) => issue.message));",
        ]
    return "\n".join(lines) + "\n"


def data_examples(program: ir.Program, ctx: SiteContext, package: ModuleType | None) -> dict:
    """Usage examples built from this rulebook's own data (highlighted HTML).

    The commands name the rulebook's folder and the build's output folder by placeholders
    (:data:`RULEBOOK_FOLDER`, :data:`OUTPUT_FOLDER`, in the rulebook's language), never by
    where this build ran or wrote: two builds of the same rulebook write the same page. With
    them filled in, every snippet runs: the Python ones with the generated package installed
    (``pip install <output>/python/<package>``), the shell ones with ``rulebook`` and ``jq``."""
    rb = module_name(program.rulebook.name if program.rulebook else "rulebook")  # the package's import name, as generated
    rulebook_folder, output = _(RULEBOOK_FOLDER), _(OUTPUT_FOLDER)
    site_data = f"{output}/site/{site_file('data')}"
    out: dict[str, Any] = {"python": None, "typescript": None, "cli": None, "jq": None, "js": None, "schema": None,
                           "armies": bool(program.armies), "js_dir": esc(f"{output}/js/"),
                           "browser_global": esc(f"rulebook_{rb}"),
                           "build": highlight(f"rulebook build {rulebook_folder} -o {output}\n", "bash"),
                           "install": highlight(f"pip install {output}/{shlex.quote(f'python/{rb}')}\n", "bash"),
                           "package": attr(rb), "rulebook_folder": esc(rulebook_folder), "output": esc(output),
                           "python_dir": esc(f"{output}/python/{rb}/"), "site_data": esc(site_data + "/")}
    call = _typical_call(program, package) if package is not None else None
    if call is not None:
        proc, inputs = call
        runtime_note = _("the runtime the package carries")
        input_note = _("the JSON of %(schema)s") % {"schema": f"schemas/procedures/{proc}.input.schema.json"}
        fraction_note = _("p is an exact fraction")
        result_note = _("the result as JSON, as %(schema)s describes it") % {"schema": f"schemas/procedures/{proc}.result.schema.json"}
        trace_note = _("the trace as JSON")
        out["python"] = highlight(
            f"import json\n\nimport {rb}\nfrom {rb} import runtime  # {runtime_note}\n\n"
            f"proc = {rb}.PROCEDURES[{proc!r}]\n"
            f"inputs = {inputs!r}  # {input_note}\n"
            "dist = runtime.exact(proc.function, **proc.convert(inputs))\n"
            "for result, p in dist.items():\n"
            f"    print(result, p)  # {fraction_note}\n"
            "result, trace = runtime.sample(proc.function, seed=1, trace=True, **proc.convert(inputs))\n"
            f"print(trace.render_text(lang={rb}.LANG))\n"
            f"print(json.dumps(runtime.to_jsonable(result), ensure_ascii=False))  # {result_note}\n"
            f"print(json.dumps(trace.to_json(), ensure_ascii=False)[:300])  # {trace_note}\n",
            "python",
        )
        out["typescript"] = highlight(_typescript(program, output, proc, inputs), "typescript")
        out["cli"] = highlight(
            f"rulebook resolve {shlex.quote(proc)} --rulebook {rulebook_folder} --exact"
            f" --input {shlex.quote(json.dumps(inputs, ensure_ascii=False))}\n",
            "bash",
        )
        out["proc_title"] = ctx.a(ctx.title_of(proc), ctx.href(proc))
    # a catalog entry: the JSON examples
    with_entries = [c.name for c in ctx.catalogs.values() if c.entries]
    cat = ([c for c in with_entries if c in ctx.datasheet_catalogs] or with_entries or [None])[0]
    if cat is not None:
        ident = next(iter(ctx.catalogs[cat].entries))
        fields = ctx.fields(ctx.catalogs[cat].record)
        field = next((f.name for f in fields if f.type.kind == "int"), fields[0].name if fields else None)
        doc = f"{output}/" + shlex.quote(f"site/{site_file('data')}/json/{cat}.json")
        out["jq"] = highlight(f"jq {shlex.quote('.entries[' + json.dumps(ident) + ']')} {doc}\njq '.entries | keys' {doc}\n", "bash")
        out["js"] = highlight(
            f"const catalog = await (await fetch({json.dumps(site_file('data') + f'/json/{cat}.json')})).json();\n"
            f"console.log(catalog.title, catalog.entries[{json.dumps(ident)}]" + (f"[{json.dumps(field)}]" if field else "") + ");\n",
            "javascript",
        )
        invalid_note = _("ValidationError if it does not conform")
        out["schema"] = highlight(
            "import json, pathlib\n"
            "from jsonschema import Draft202012Validator\n"
            "from referencing import Registry, Resource\n\n"
            f"root = pathlib.Path({site_data!r})\n"
            "schemas = [json.loads(p.read_text()) for p in (root / \"schemas\").rglob(\"*.schema.json\")]\n"
            "registry = Registry().with_resources((s[\"$id\"], Resource.from_contents(s)) for s in schemas)\n"
            f"data = json.loads((root / \"json\" / {cat + '.json'!r}).read_text())\n"
            f"schema = json.loads((root / \"schemas\" / {cat + '.schema.json'!r}).read_text())\n"
            f"Draft202012Validator(schema, registry=registry).validate(data)  # {invalid_note}\n",
            "python",
        )
        out["catalog"] = ctx.a(ctx.title_of(cat), ctx.href(cat))
    return out


def write_data_page(program: ir.Program, ctx: SiteContext, env: jinja2.Environment, out_dir: Path, docs: Path,
                    package: ModuleType | None, title: str) -> None:
    """Publish the build's data under ``docs/datos/`` and write the page that presents it."""
    data = publish_data(program, ctx, out_dir, docs / site_file("data"))
    page = ctx.pages["data"]
    ctx.start_page(page)
    data["examples"] = data_examples(program, ctx, package)
    (docs / page).write_text(env.get_template("datos.md.j2").render(title=esc(title), **data), encoding="utf-8")
