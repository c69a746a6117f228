#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# check-uapi.py - prove that our include/uapi/rdma headers are ABI-identical
# to the system's copies under /usr/include/rdma (linux-libc-dev 6.1).
#
# For every header under include/uapi/rdma/ (subdirectories too) that has a
# system counterpart, everything OUR header defines is extracted and compared
# with what the system header defines; nothing is listed by hand:
#
#   macros       "gcc -E -dD" lists the macros our file defines (include
#                guard excepted).  Object-like macros that are integer
#                constant expressions (found with _Static_assert under
#                -pedantic-errors) are compared by value AND C type
#                (_Generic), per target ABI; so are function-like macros,
#                probed with a fixed set of integer arguments.  Any other
#                macro (types, strings, ...) is compared as normalised token
#                text (parameter names do not matter).
#   enumerators  found in the DWARF of a tiny object that includes the
#                header; value and C type evaluated by the compiler; each
#                must sit in the same enum (tag, or anonymous).  Named enum
#                types must have the same size.
#   structs,     named ones (and anonymous ones named by a typedef), from the
#   unions       DWARF: sizeof and _Alignof, and for every member, recursing
#                through nested and anonymous structs/unions (flattened by
#                path): offset, size and canonical type (typedefs resolved,
#                explicit alignment kept); bitfields by bit offset and width;
#                flexible arrays ("[]" and "[0]" alike) included.
#   typedefs     canonical type, size and alignment.
#
# Our header must also compile on its own, without a warning under
# -Wall -Wextra.
#
# Everything is checked for x86_64 (-m64) and, when the compiler can, i386
# (-m32), since the uapi must be identical on both.  An item we define that
# the system does not, or that differs, fails the header; items only the
# system defines are fine (we may implement a subset) and are counted.
#
# Output is TAP (version 13): one test point per header plus one that fails
# when include/uapi/rdma holds a header with no system counterpart, unless it
# is listed in PRIVATE_HEADERS below.  Exit status 0 only if all are ok.
#
# Needs gcc and python3-pyelftools (Debian).  See tests/abi/README.rst.

import os
import sys

try:
	from elftools.elf.elffile import ELFFile
except ImportError:
	# pyelftools comes from Debian's python3-pyelftools, which only the
	# system interpreter sees; re-run under it if we were started by another.
	if os.path.realpath(sys.executable) != os.path.realpath('/usr/bin/python3') \
	   and os.access('/usr/bin/python3', os.X_OK):
		os.execv('/usr/bin/python3', ['/usr/bin/python3'] + sys.argv)
	print('TAP version 13\n1..1')
	print('not ok 1 - python3-pyelftools is missing '
	      '(apt-get install python3-pyelftools)')
	sys.exit(1)

import argparse
import concurrent.futures
import itertools
import re
import shutil
import subprocess
import tempfile
import time

# Headers under include/uapi/rdma/ that are private to this project and so
# have no counterpart in the system's /usr/include/rdma/.  Paths relative to
# include/uapi/, e.g. 'rdma/foo_private.h'.  Every entry needs a comment
# saying why it exists.  Keep this empty unless really needed: a header that
# is meant to mirror upstream must never be listed here.
PRIVATE_HEADERS = {
	# 'rdma/example.h': 'why it has no upstream counterpart',
}

# Integer arguments used to probe function-like macros.
PROBE_ARGS = ['0', '1', '2', '3', '5', '0x3f', '0x3ff', '0x400', '0x7ff',
	      '0xffff']

# Type codes of _Generic() below, for messages.
CTYPES = ['non-integer', '_Bool', 'char', 'signed char', 'unsigned char',
	  'short', 'unsigned short', 'int', 'unsigned int', 'long',
	  'unsigned long', 'long long', 'unsigned long long']
SIGNED_CTYPES = {2, 3, 5, 7, 9, 11}	# char is signed on x86

CTYPE_MACRO = r'''
#define __ABI_CTYPE(x) _Generic((x), _Bool: 1, char: 2, signed char: 3, \
	unsigned char: 4, short: 5, unsigned short: 6, int: 7, \
	unsigned int: 8, long: 9, unsigned long: 10, long long: 11, \
	unsigned long long: 12, default: 0)
'''

ENV_C = dict(os.environ, LC_ALL='C', LANG='C')
ENV_C.pop('GCC_COLORS', None)


class Fail(Exception):
	"""The header cannot be checked at all (does not compile, ...)."""


def run(cmd, cwd=None, stdin=None):
	return subprocess.run(cmd, cwd=cwd, input=stdin, env=ENV_C,
			      stdout=subprocess.PIPE, stderr=subprocess.PIPE,
			      text=True)


# ---------------------------------------------------------------------------
# Target ABIs and the two environments (ours / system)

def detect_arches(cc):
	"""x86_64 always; i386 when `cc -m32' can compile a uapi header."""
	arches = [('x86_64', ['-m64'])]
	probe = '#include <linux/types.h>\n'
	for extra in ([], None):
		flags = ['-m32']
		if extra is None:
			# Without linux-libc-dev:i386 the 32-bit compiler finds no
			# <asm/...>; x86's uapi asm headers serve both word sizes
			# (they switch on __i386__), so borrow the 64-bit copies.
			ma = run([cc, '-print-multiarch']).stdout.strip()
			if not ma:
				break
			flags += ['-idirafter', '/usr/include/' + ma]
		r = run([cc] + flags + ['-fsyntax-only', '-x', 'c', '-'],
			stdin=probe)
		if r.returncode == 0:
			arches.append(('i386', flags))
			break
	return arches


class Env:
	def __init__(self, name, incdir, incflags, warnflags):
		self.name = name		# 'ours' or 'system'
		self.incdir = incdir		# directory holding rdma/
		self.incflags = incflags
		self.warnflags = warnflags	# for the standalone compile

	def path(self, rel):
		return os.path.realpath(os.path.join(self.incdir, rel))


# ---------------------------------------------------------------------------
# Macros

class Macro:
	def __init__(self, name, params, body):
		self.name = name
		self.params = params		# None for object-like
		self.body = body

	def tokens(self):
		toks = tokenize(self.body)
		if self.params:
			pos = {p: '$%d' % i for i, p in enumerate(self.params)}
			toks = [pos.get(t, t) for t in toks]
		return ' '.join(toks)

	def probes(self):
		"""Expressions to evaluate: [(label, C expression)]."""
		if self.params is None:
			return [(None, self.name)]
		n = len(self.params)
		if n == 0:
			combos = [()]
		elif self.params[-1].endswith('...'):
			return []
		elif n == 1:
			combos = [(a,) for a in PROBE_ARGS]
		elif n == 2:
			combos = list(itertools.product(PROBE_ARGS[:7], repeat=2))
		else:
			k = len(PROBE_ARGS)
			combos = [tuple(PROBE_ARGS[(i + 3 * j) % k]
					for j in range(n)) for i in range(k)]
		return [('(%s)' % ', '.join(c),
			 '%s(%s)' % (self.name, ', '.join(c))) for c in combos]


TOKEN_RE = re.compile(r'''
	[A-Za-z_]\w*
	| \.?\d(?:[eEpP][+-]|[\w.])*
	| "(?:\\.|[^"\\])*" | '(?:\\.|[^'\\])*'
	| <<= | >>= | \.\.\. | -> | \+\+ | -- | << | >> | <= | >= | == | !=
	| && | \|\| | [-+*/%&^|]= | \#\# | \S''', re.X)


def tokenize(text):
	return TOKEN_RE.findall(text)


DEFINE_RE = re.compile(r'#define ([A-Za-z_]\w*)(\(([^)]*)\))?(?: (.*))?$')
LINEMARK_RE = re.compile(r'# \d+ "((?:\\.|[^"\\])*)"')


def strip_comments(text):
	text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
	text = re.sub(r'//[^\n]*', '', text)
	return text.replace('\\\n', ' ')


def include_guard(path):
	"""The include-guard macro of a header, or None."""
	with open(path, encoding='utf-8', errors='replace') as f:
		text = strip_comments(f.read())
	dirs = [ln.strip()[1:].split() for ln in text.splitlines()
		if ln.strip().startswith('#')]
	dirs = [d for d in dirs if d]
	if len(dirs) < 2:
		return None
	first, second = dirs[0], dirs[1]
	if first[0] == 'ifndef' and len(first) == 2:
		name = first[1]
	elif first[0] == 'if' and ' '.join(first[1:]).replace(' ', '') \
			in ('!defined(%s)' % second[-1], '!defined%s' % second[-1]):
		name = second[-1]
	else:
		return None
	if second[0] == 'define' and len(second) == 2 and second[1] == name:
		return name
	return None


def list_macros(cc, env, rel, workdir):
	"""{name: Macro} for the macros defined by the header file itself."""
	target = env.path(rel)
	r = run([cc, '-E', '-dD', '-std=gnu11'] + env.incflags +
		['-x', 'c', '-'], cwd=workdir, stdin='#include <%s>\n' % rel)
	if r.returncode:
		raise Fail('preprocessing failed:\n' + r.stderr)
	macros = {}
	inside = False
	for line in r.stdout.splitlines():
		m = LINEMARK_RE.match(line)
		if m:
			name = m.group(1).encode().decode('unicode_escape')
			inside = name.startswith('/') and \
				os.path.realpath(name) == target
			continue
		if not inside:
			continue
		if line.startswith('#define '):
			m = DEFINE_RE.match(line)
			if m:
				params = None
				if m.group(2) is not None:
					params = [p.strip() for p in
						  m.group(3).split(',') if p.strip()]
				macros[m.group(1)] = Macro(m.group(1), params,
							   m.group(4) or '')
		elif line.startswith('#undef '):
			macros.pop(line.split()[1], None)
	guard = include_guard(target)
	if guard in macros and not macros[guard].body.strip() and \
	   macros[guard].params is None:
		del macros[guard]
	return macros


# ---------------------------------------------------------------------------
# Which expressions are integer constant expressions?

ERROR_LINE_RE = re.compile(r'^probe\.c:(\d+):(?:\d+:)? (?:fatal )?error: (.*)$')
UNDECLARED_RE = re.compile(r"'([A-Za-z_]\w*)' undeclared")


def probe_ice(cc, env, rel, context, exprs, workdir):
	"""Split exprs into integer constant expressions and the rest.

	Returns (set of indexes that are ICEs, set of undeclared identifiers).
	"""
	head = ''.join('#include <%s>\n' % c for c in context)
	head += '#include <%s>\n' % rel
	bad, undeclared = set(), set()
	todo = list(range(len(exprs)))
	for _ in range(4):
		lines = head.count('\n')
		src = [head]
		lineno = {}
		for i in todo:
			lines += 1
			lineno[lines] = i
			src.append('_Static_assert((%s) == (%s), "");\n' %
				   (exprs[i], exprs[i]))
		fn = os.path.join(workdir, 'probe.c')
		with open(fn, 'w') as f:
			f.write(''.join(src))
		# no -w: it would silence the pedantic errors that tell an
		# integer constant expression from what gcc merely folds
		r = run([cc, '-fsyntax-only', '-std=gnu11', '-pedantic-errors',
			 '-ftrack-macro-expansion=0', '-fmax-errors=0'] +
			env.incflags + ['probe.c'], cwd=workdir)
		new_bad = set()
		for line in r.stderr.splitlines():
			m = ERROR_LINE_RE.match(line)
			if m and int(m.group(1)) in lineno:
				new_bad.add(lineno[int(m.group(1))])
				u = UNDECLARED_RE.search(m.group(2))
				if u:
					undeclared.add(u.group(1))
		if not new_bad:
			break
		bad |= new_bad
		todo = [i for i in todo if i not in bad]
	return set(range(len(exprs))) - bad, undeclared


def find_context(sysinc, names):
	"""System uapi headers that define the given identifiers.

	A uapi header may use names it does not include itself (rdma_netlink.h's
	RDMA_NLA_TYPE_MASK uses linux/netlink.h's NLA_F_NESTED); to evaluate such
	macros, the header defining the name is included first, in both
	environments alike.
	"""
	found = {}
	want = set(names)
	for sub in ('linux', 'rdma'):
		d = os.path.join(sysinc, sub)
		if not want or not os.path.isdir(d):
			continue
		for fn in sorted(os.listdir(d)):
			if not fn.endswith('.h'):
				continue
			try:
				with open(os.path.join(d, fn), errors='replace') as f:
					text = f.read()
			except OSError:
				continue
			for name in list(want):
				if name in text and re.search(
					r'(^\s*#\s*define\s+%s\b|^\s*%s\s*(=|,|$))'
					% (name, name), text, re.M):
					found[name] = '%s/%s' % (sub, fn)
					want.discard(name)
	return found


# ---------------------------------------------------------------------------
# Evaluation by the compiler: values land in .rodata of an object file

def evaluate(cc, env, arch, rel, context, items, workdir):
	"""items: [(kind, C expression)], kind 'int', 'sizeof' or 'alignof'.

	Returns a list of (value, ctype code) for 'int', plain values else.
	"""
	src = [''.join('#include <%s>\n' % c for c in context),
	       '#include <%s>\n' % rel, CTYPE_MACRO]
	for i, (kind, expr) in enumerate(items):
		if kind == 'int':
			src.append('__attribute__((used)) const unsigned long long '
				   '__abi_v%d = (unsigned long long)(%s);\n'
				   % (i, expr))
			src.append('__attribute__((used)) const unsigned char '
				   '__abi_t%d = __ABI_CTYPE(%s);\n' % (i, expr))
		else:
			op = 'sizeof' if kind == 'sizeof' else '_Alignof'
			src.append('__attribute__((used)) const unsigned long long '
				   '__abi_v%d = %s(%s);\n' % (i, op, expr))
	name = 'eval-%s' % arch[0]
	with open(os.path.join(workdir, name + '.c'), 'w') as f:
		f.write(''.join(src))
	r = run([cc, '-c', '-std=gnu11', '-w', '-O0'] + arch[1] +
		env.incflags + [name + '.c', '-o', name + '.o'], cwd=workdir)
	if r.returncode:
		raise Fail('[%s] evaluation failed:\n%s' % (arch[0], r.stderr))
	vals = {}
	with open(os.path.join(workdir, name + '.o'), 'rb') as f:
		elf = ELFFile(f)
		little = elf.little_endian
		for sym in elf.get_section_by_name('.symtab').iter_symbols():
			if not sym.name.startswith('__abi_'):
				continue
			sec = elf.get_section(sym['st_shndx'])
			size = sym['st_size']
			if sec['sh_type'] == 'SHT_NOBITS':
				v = 0
			else:
				data = sec.data()[sym['st_value']:
						  sym['st_value'] + size]
				v = int.from_bytes(data, 'little' if little else 'big')
			vals[sym.name] = v
	out = []
	for i, (kind, _) in enumerate(items):
		v = vals['__abi_v%d' % i]
		if kind == 'int':
			t = vals['__abi_t%d' % i]
			if t in SIGNED_CTYPES and v >= 1 << 63:
				v -= 1 << 64
			out.append((v, t))
		else:
			out.append(v)
	return out


# ---------------------------------------------------------------------------
# DWARF: enumerators, structs/unions, typedefs declared by the header

def strip_tq(die):
	"""Follow typedefs and cv-qualifiers."""
	while die is not None and die.tag in ('DW_TAG_typedef',
					      'DW_TAG_const_type',
					      'DW_TAG_volatile_type',
					      'DW_TAG_restrict_type',
					      'DW_TAG_atomic_type'):
		die = type_of(die)
	return die


def type_of(die):
	if 'DW_AT_type' not in die.attributes:
		return None
	return die.get_DIE_from_attribute('DW_AT_type')


def attr(die, name, default=None):
	a = die.attributes.get(name)
	return default if a is None else a.value


def dname(die):
	n = attr(die, 'DW_AT_name')
	return n.decode() if n is not None else None


def array_dims(die):
	dims = []
	for sub in die.iter_children():
		if sub.tag != 'DW_TAG_subrange_type':
			continue
		if 'DW_AT_count' in sub.attributes:
			dims.append(attr(sub, 'DW_AT_count'))
		elif 'DW_AT_upper_bound' in sub.attributes:
			ub = attr(sub, 'DW_AT_upper_bound')
			if not isinstance(ub, int):
				raise Fail('variable-length array bound')
			dims.append(ub + 1)
		else:
			dims.append(None)
	# "[0]" and "[]" are the same flexible array to the ABI
	return [None if d == 0 else d for d in dims]


def type_sig(die):
	"""Canonical C type: typedefs resolved, explicit alignment kept."""
	if die is None:
		return 'void'
	tag = die.tag
	if tag == 'DW_TAG_typedef':
		s = type_sig(type_of(die))
		al = attr(die, 'DW_AT_alignment')
		return s + (' aligned(%d)' % al if al else '')
	if tag in ('DW_TAG_const_type', 'DW_TAG_volatile_type',
		   'DW_TAG_restrict_type', 'DW_TAG_atomic_type'):
		return type_sig(type_of(die))
	if tag == 'DW_TAG_base_type':
		return dname(die)
	if tag == 'DW_TAG_pointer_type':
		return type_sig(type_of(die)) + ' *'
	if tag in ('DW_TAG_structure_type', 'DW_TAG_union_type',
		   'DW_TAG_enumeration_type'):
		kw = {'DW_TAG_structure_type': 'struct',
		      'DW_TAG_union_type': 'union',
		      'DW_TAG_enumeration_type': 'enum'}[tag]
		return '%s %s' % (kw, dname(die) or '{anonymous}')
	if tag == 'DW_TAG_array_type':
		return type_sig(type_of(die)) + ''.join(
			'[%s]' % ('' if d is None else d) for d in array_dims(die))
	if tag == 'DW_TAG_subroutine_type':
		return 'function'
	return tag


def type_size(die):
	if die is None:
		return 0
	if 'DW_AT_byte_size' in die.attributes:
		return attr(die, 'DW_AT_byte_size')
	if die.tag == 'DW_TAG_array_type':
		n = type_size(type_of(die))
		for d in array_dims(die):
			n *= d or 0
		return n
	if die.tag in ('DW_TAG_typedef', 'DW_TAG_const_type',
		       'DW_TAG_volatile_type', 'DW_TAG_restrict_type',
		       'DW_TAG_atomic_type'):
		return type_size(type_of(die))
	return 0


def member_offset(die):
	loc = attr(die, 'DW_AT_data_member_location', 0)
	if isinstance(loc, list):		# DW_OP_plus_uconst N
		loc = loc[1] if len(loc) == 2 and loc[0] == 0x23 else 0
	return loc


def flatten(die, base_bits, prefix, out):
	"""Append (path, description) for every member of struct/union die."""
	for m in die.iter_children():
		if m.tag != 'DW_TAG_member':
			continue
		name = dname(m)
		mt = type_of(m)
		if 'DW_AT_bit_size' in m.attributes:
			width = attr(m, 'DW_AT_bit_size')
			if 'DW_AT_data_bit_offset' in m.attributes:
				bit = attr(m, 'DW_AT_data_bit_offset')
			else:			# DWARF 4 style, little endian
				storage = type_size(mt) * 8
				bit = member_offset(m) * 8 + storage - \
					attr(m, 'DW_AT_bit_offset', 0) - width
			off = base_bits + bit
			desc = ('bit offset %d, width %d' % (off, width),
				"type '%s'" % type_sig(mt))
			if name:
				out.append((prefix + name, desc))
			continue
		off = base_bits + member_offset(m) * 8
		al = attr(m, 'DW_AT_alignment')
		sig = type_sig(mt) + (' aligned(%d)' % al if al else '')
		desc = ('offset %d, size %d' % (off // 8, type_size(mt)),
			"type '%s'" % sig)
		inner = strip_tq(mt)
		if name:
			out.append((prefix + name, desc))
			sub = prefix + name + '.'
		else:
			sub = prefix
		if inner is not None and inner.tag in ('DW_TAG_structure_type',
						       'DW_TAG_union_type'):
			flatten(inner, off, sub, out)
		elif inner is not None and inner.tag == 'DW_TAG_array_type':
			elem = strip_tq(type_of(inner))
			if elem is not None and not dname(elem) and elem.tag in \
			   ('DW_TAG_structure_type', 'DW_TAG_union_type'):
				flatten(elem, off, sub[:-1] + '[0].', out)


class Decls:
	def __init__(self):
		self.enumerators = {}	# name -> enum tag ('enum x'/'anonymous enum')
		self.enum_types = {}	# 'enum x' -> description
		self.records = {}	# 'struct x'/'union x'/'typedef t' ->
					#   (C type expression, [(path, desc)])
		self.typedefs = {}	# name -> description


def file_table(dwarf, cu):
	lp = dwarf.line_program_for_CU(cu)
	if lp is None:
		return {}
	ver = lp.header['version']
	dirs = [d.decode() if isinstance(d, bytes) else d
		for d in lp.header['include_directory']]
	comp_dir = attr(cu.get_top_DIE(), 'DW_AT_comp_dir', b'').decode()
	if ver < 5:
		dirs = [comp_dir] + dirs
	table = {}
	for i, fe in enumerate(lp.header['file_entry']):
		name = fe.name.decode() if isinstance(fe.name, bytes) else fe.name
		d = dirs[fe.dir_index] if fe.dir_index < len(dirs) else ''
		path = os.path.realpath(os.path.join(comp_dir, d, name))
		table[i if ver >= 5 else i + 1] = path
	return table


def read_decls(cc, env, arch, rel, workdir):
	name = 'dwarf-%s' % arch[0]
	with open(os.path.join(workdir, name + '.c'), 'w') as f:
		f.write('#include <%s>\n' % rel)
	r = run([cc, '-c', '-std=gnu11', '-g', '-gdwarf-5',
		 '-fno-eliminate-unused-debug-types', '-O0'] + env.warnflags +
		arch[1] + env.incflags + [name + '.c', '-o', name + '.o'],
		cwd=workdir)
	if r.returncode:
		raise Fail('[%s] header does not compile on its own:\n%s'
			   % (arch[0], r.stderr.rstrip()))
	target = env.path(rel)
	decls = Decls()
	with open(os.path.join(workdir, name + '.o'), 'rb') as f:
		elf = ELFFile(f)
		dwarf = elf.get_dwarf_info()
		for cu in dwarf.iter_CUs():
			files = file_table(dwarf, cu)
			for die in cu.iter_DIEs():
				if die.tag not in ('DW_TAG_structure_type',
						   'DW_TAG_union_type',
						   'DW_TAG_enumeration_type',
						   'DW_TAG_typedef'):
					continue
				if files.get(attr(die, 'DW_AT_decl_file')) != target:
					continue
				if attr(die, 'DW_AT_declaration'):
					continue
				collect(die, decls)
	return decls


def collect(die, decls):
	name = dname(die)
	if die.tag == 'DW_TAG_enumeration_type':
		key = 'enum %s' % name if name else 'anonymous enum'
		if name:
			decls.enum_types[key] = 'size %d, %s' % (
				type_size(die), type_sig(type_of(die)))
		for e in die.iter_children():
			if e.tag == 'DW_TAG_enumerator':
				decls.enumerators[dname(e)] = key
		return
	if die.tag == 'DW_TAG_typedef':
		t = type_of(die)
		decls.typedefs[name] = 'size %d, %s' % (type_size(t), type_sig(die))
		inner = strip_tq(t)
		if inner is not None and not dname(inner) and inner.tag in \
		   ('DW_TAG_structure_type', 'DW_TAG_union_type'):
			members = []
			flatten(inner, 0, '', members)
			decls.records['typedef ' + name] = (name, members)
		return
	if not name:
		return		# reached through its parent or its typedef
	kw = 'struct' if die.tag == 'DW_TAG_structure_type' else 'union'
	members = []
	flatten(die, 0, '', members)
	decls.records['%s %s' % (kw, name)] = ('%s %s' % (kw, name), members)


# ---------------------------------------------------------------------------
# Checking one header

def fmt_int(vt):
	v, t = vt
	s = str(v) if -1024 < v < 1024 else '%d (%s)' % (
		v, hex(v) if v >= 0 else '-' + hex(-v))
	return '%s [%s]' % (s, CTYPES[t] if t < len(CTYPES) else t)


class Result:
	def __init__(self, rel):
		self.rel = rel
		self.errors = []	# (message, arch or None)
		self.notes = []
		self.counts = {}

	def err(self, msg, arch=None):
		self.errors.append((msg, arch))


def extract(cc, env, rel, arches, tmp):
	"""Everything the header defines, for one environment."""
	wd = tempfile.mkdtemp(dir=tmp, prefix=env.name + '-')
	out = {'macros': list_macros(cc, env, rel, wd), 'decls': {}}
	for arch in arches:
		out['decls'][arch[0]] = read_decls(cc, env, arch, rel, wd)
	out['wd'] = wd
	return out


def check_header(args, rel, arches):
	res = Result(rel)
	cc = args.cc
	# our header must also compile on its own without a warning
	ours_env = Env('ours', args.ours_inc, ['-I', args.ours_inc],
		       ['-Wall', '-Wextra', '-Werror'])
	sys_flags = [] if os.path.realpath(args.sysinc) == '/usr/include' \
		else ['-I', args.sysinc]
	sys_env = Env('system', args.sysinc, sys_flags, ['-w'])
	tmp = tempfile.mkdtemp(prefix='check-uapi-')
	try:
		try:
			ours = extract(cc, ours_env, rel, arches, tmp)
		except Fail as e:
			res.err('our header: %s' % e)
			return res
		try:
			theirs = extract(cc, sys_env, rel, arches, tmp)
		except Fail as e:
			res.err('system header: %s' % e)
			return res
		compare(args, res, rel, arches, ours_env, sys_env, ours, theirs)
	except Fail as e:
		res.err(str(e))
	finally:
		if not args.keep:
			shutil.rmtree(tmp, ignore_errors=True)
		else:
			res.notes.append('work files kept in %s' % tmp)
	return res


def compare(args, res, rel, arches, ours_env, sys_env, ours, theirs):
	cc = args.cc
	om, tm = ours['macros'], theirs['macros']
	main = arches[0][0]
	od, td = ours['decls'][main], theirs['decls'][main]

	# -- macros: which are there, and which are integer constants?
	names = sorted(om)
	shared = []
	for n in names:
		if n not in tm:
			res.err('macro %s: not defined by the system header '
				'(ours: %s%s)' % (n, '(%s) ' % ', '.join(om[n].params)
						 if om[n].params is not None else '',
						 om[n].body.strip() or '<empty>'))
			continue
		if (om[n].params is None) != (tm[n].params is None) or \
		   (om[n].params is not None and
		    len(om[n].params) != len(tm[n].params)):
			res.err('macro %s: ours is %s, system\'s is %s' % (
				n, describe_kind(om[n]), describe_kind(tm[n])))
			continue
		shared.append(n)
	exprs = []
	index = []		# (macro name, probe label)
	for n in shared:
		for label, expr in tm[n].probes():
			exprs.append(expr)
			index.append((n, label))
	context = []
	ice_o, und_o = probe_ice(cc, ours_env, rel, [], exprs, ours['wd'])
	ice_t, und_t = probe_ice(cc, sys_env, rel, [], exprs, theirs['wd'])
	if und_o | und_t:
		found = find_context(args.sysinc, und_o | und_t)
		context = sorted(set(found.values()))
		if context:
			res.notes.append('macros evaluated with %s included first '
					 '(for %s)' % (', '.join('<%s>' % c for c in context),
						      ', '.join(sorted(found))))
			ice_o, _ = probe_ice(cc, ours_env, rel, context, exprs,
					     ours['wd'])
			ice_t, _ = probe_ice(cc, sys_env, rel, context, exprs,
					     theirs['wd'])

	by_macro = {}
	for i, (n, label) in enumerate(index):
		by_macro.setdefault(n, []).append(i)
	int_items = []		# indexes into exprs to evaluate
	token_cmp = []
	kinds = {'integer': 0, 'function-like (probed)': 0, 'token text': 0}
	for n in shared:
		idx = by_macro.get(n, [])
		t_ok = [i for i in idx if i in ice_t]
		o_ok = [i for i in idx if i in ice_o]
		if not t_ok and not o_ok:
			token_cmp.append(n)
			continue
		if set(t_ok) != set(o_ok):
			if om[n].params is None:
				which = 'ours' if o_ok else 'the system\'s'
				res.err('macro %s: only %s is an integer constant '
					'(ours: %s; system: %s)' % (
						n, which, om[n].body.strip(),
						tm[n].body.strip()))
			else:
				res.err('macro %s: evaluates to an integer constant for '
					'different arguments (ours %d, system %d of %d probes)'
					% (n, len(o_ok), len(t_ok), len(idx)))
			continue
		int_items.extend(t_ok)
		kinds['integer' if om[n].params is None
		      else 'function-like (probed)'] += 1
	for n in token_cmp:
		kinds['token text'] += 1
		a, b = om[n].tokens(), tm[n].tokens()
		if a != b:
			res.err('macro %s: ours "%s" vs system "%s"' % (n, a, b))

	# -- enumerators
	enum_names = sorted(od.enumerators)
	for n in enum_names:
		if n not in td.enumerators:
			res.err('enumerator %s: not defined by the system header' % n)
		elif od.enumerators[n] != td.enumerators[n]:
			res.err('enumerator %s: in %s in ours, in %s in the system '
				'header' % (n, od.enumerators[n], td.enumerators[n]))
	enum_shared = [n for n in enum_names if n in td.enumerators and
		       od.enumerators[n] == td.enumerators[n]]

	# -- records and typedefs: presence (layout compared per arch below)
	rec_names = sorted(od.records)
	rec_shared = []
	for k in rec_names:
		if k not in td.records:
			res.err('%s: not defined by the system header' % k)
		else:
			rec_shared.append(k)
	td_shared = []
	for k in sorted(od.typedefs):
		if k not in td.typedefs:
			res.err('typedef %s: not defined by the system header' % k)
		else:
			td_shared.append(k)
	for k in sorted(od.enum_types):
		if k not in td.enum_types:
			res.err('%s: not defined by the system header' % k)

	# -- values and layouts, per target ABI
	items = [('int', exprs[i]) for i in int_items]
	items += [('int', n) for n in enum_shared]
	for k in rec_shared:
		items += [('sizeof', od.records[k][0]),
			  ('alignof', od.records[k][0])]
	for k in td_shared:
		items += [('alignof', k)]
	n_members = 0
	for arch in arches:
		a = arch[0]
		vo = evaluate(cc, ours_env, arch, rel, context, items, ours['wd'])
		vt = evaluate(cc, sys_env, arch, rel, context, items, theirs['wd'])
		pos = 0
		probe_diffs = {}
		for i in int_items:
			if vo[pos] != vt[pos]:
				n, label = index[i]
				probe_diffs[n] = probe_diffs.get(n, 0) + 1
				if probe_diffs[n] <= 3:
					res.err('macro %s%s: ours %s vs system %s' % (
						n, label or '', fmt_int(vo[pos]),
						fmt_int(vt[pos])), a)
			pos += 1
		for n, count in probe_diffs.items():
			if count > 3:
				res.err('macro %s: %d more probes differ' %
					(n, count - 3), a)
		for n in enum_shared:
			if vo[pos] != vt[pos]:
				res.err('enumerator %s: ours %s vs system %s' % (
					n, fmt_int(vo[pos]), fmt_int(vt[pos])), a)
			pos += 1
		odx, tdx = ours['decls'][a], theirs['decls'][a]
		for k in rec_shared:
			for what in ('sizeof', '_Alignof'):
				if vo[pos] != vt[pos]:
					res.err('%s: %s ours %d vs system %d' % (
						k, what, vo[pos], vt[pos]), a)
				pos += 1
			mo = odx.records.get(k, (None, []))[1]
			mt = dict(tdx.records.get(k, (None, []))[1])
			if a == main:
				n_members += len(mo)
			seen = set()
			for path, desc in mo:
				seen.add(path)
				if path not in mt:
					res.err('%s: member %s (%s, %s) not in the system '
						'header' % (k, path, *desc), a)
				elif mt[path] != desc:
					res.err('%s: member %s: ours %s, %s vs system '
						'%s, %s' % (k, path, *desc, *mt[path]), a)
			for path in mt:
				if path not in seen:
					res.err('%s: member %s (%s, %s) missing in ours' %
						(k, path, *mt[path]), a)
		for k in td_shared:
			if vo[pos] != vt[pos]:
				res.err('typedef %s: _Alignof ours %d vs system %d' % (
					k, vo[pos], vt[pos]), a)
			pos += 1
			if odx.typedefs.get(k) != tdx.typedefs.get(k):
				res.err('typedef %s: ours %s vs system %s' % (
					k, odx.typedefs.get(k), tdx.typedefs.get(k)), a)
		for k in od.enum_types:
			if k in td.enum_types and \
			   odx.enum_types.get(k) != tdx.enum_types.get(k):
				res.err('%s: ours %s vs system %s' % (
					k, odx.enum_types.get(k), tdx.enum_types.get(k)), a)

	res.counts = {
		'macros': len(om), 'enumerators': len(od.enumerators),
		'records': len(od.records), 'members': n_members,
		'typedefs': len(od.typedefs),
	}
	res.notes.append('macros: %s' % ', '.join(
		'%d %s' % (v, k) for k, v in kinds.items()))
	if od.typedefs:
		res.notes.append('%d typedefs identical' % len(od.typedefs)
				 if not res.errors else
				 '%d typedefs checked' % len(od.typedefs))
	extra = (len(set(tm) - set(om)), len(set(td.enumerators) -
					    set(od.enumerators)),
		 len(set(td.records) - set(od.records)))
	res.notes.append('defined only by the system header (fine, we may '
			 'define a subset): %d macros, %d enumerators, '
			 '%d structs/unions' % extra)
	if args.verbose and any(extra):
		for n in sorted(set(tm) - set(om)):
			res.notes.append('  system only: macro %s' % n)
		for n in sorted(set(td.enumerators) - set(od.enumerators)):
			res.notes.append('  system only: enumerator %s' % n)
		for n in sorted(set(td.records) - set(od.records)):
			res.notes.append('  system only: %s' % n)
	res.notes.append('target ABIs: %s' % ', '.join(a for a, _ in arches))


def describe_kind(m):
	if m.params is None:
		return 'object-like'
	return 'function-like with %d parameters' % len(m.params)


# ---------------------------------------------------------------------------
# Driver

def find_headers(root):
	out = []
	base = os.path.join(root, 'rdma')
	for d, _, files in os.walk(base):
		for fn in files:
			if fn.endswith('.h'):
				out.append(os.path.relpath(os.path.join(d, fn), root))
	return sorted(out)


def self_test_repo(args):
	"""A scratch repo whose include/uapi/rdma is a copy of the system's."""
	d = tempfile.mkdtemp(prefix='check-uapi-self-')
	shutil.copytree(os.path.join(args.sysinc, 'rdma'),
			os.path.join(d, 'include', 'uapi', 'rdma'))
	return d


def main():
	here = os.path.dirname(os.path.abspath(__file__))
	ap = argparse.ArgumentParser(
		description='Compare include/uapi/rdma/*.h of the repository with '
			    'the system\'s /usr/include/rdma/*.h (TAP output).')
	ap.add_argument('--repo', default=os.path.dirname(os.path.dirname(here)),
			help='repository root (default: the one holding this '
			     'script)')
	ap.add_argument('--sysinc', default='/usr/include',
			help='system include directory (default /usr/include)')
	ap.add_argument('--cc', default='gcc', help='C compiler (default gcc)')
	ap.add_argument('-j', '--jobs', type=int, default=os.cpu_count() or 1)
	ap.add_argument('-v', '--verbose', action='store_true',
			help='also list the items only the system header defines')
	ap.add_argument('--keep', action='store_true',
			help='keep the generated work files')
	ap.add_argument('--self-test', action='store_true',
			help='check a copy of every system header against itself')
	ap.add_argument('headers', nargs='*',
			help='only these headers (e.g. rdma/rdma_netlink.h)')
	args = ap.parse_args()

	start = time.monotonic()
	scratch = None
	if args.self_test:
		scratch = args.repo = self_test_repo(args)
	args.ours_inc = os.path.realpath(os.path.join(args.repo, 'include',
						      'uapi'))
	if shutil.which(args.cc) is None:
		print('TAP version 13\n1..1')
		print('not ok 1 - C compiler %s not found' % args.cc)
		return 1

	headers = find_headers(args.ours_inc)
	if args.headers:
		want = {h if h.startswith('rdma/') else 'rdma/' + h
			for h in args.headers}
		headers = [h for h in headers if h in want]
	paired = [h for h in headers
		  if os.path.isfile(os.path.join(args.sysinc, h))]
	orphans = [h for h in headers if h not in paired]
	arches = detect_arches(args.cc)

	print('TAP version 13')
	print('1..%d' % (len(paired) + 1))
	failed = 0
	n = 0
	with concurrent.futures.ProcessPoolExecutor(
			max_workers=max(1, min(args.jobs, len(paired) or 1))) as ex:
		futs = [ex.submit(check_header, args, h, arches) for h in paired]
		for fut in futs:
			res = fut.result()
			n += 1
			c = res.counts
			if res.errors:
				failed += 1
				lines = merge_arches(res.errors, arches)
				print('not ok %d - %s: %d difference%s' % (
					n, res.rel, len(lines),
					'' if len(lines) == 1 else 's'))
				for line in lines:
					for sub in line.splitlines():
						print('# ' + sub)
			else:
				print('ok %d - %s: %d macros, %d enumerators, %d '
				      'structs/unions (%d members) identical' % (
					      n, res.rel, c['macros'],
					      c['enumerators'], c['records'],
					      c['members']))
			for note in res.notes:
				print('# %s: %s' % (res.rel, note))
			sys.stdout.flush()

	n += 1
	unexpected = [h for h in orphans if h not in PRIVATE_HEADERS]
	if unexpected:
		failed += 1
		print('not ok %d - include/uapi/rdma: %d header%s without a system '
		      'counterpart' % (n, len(unexpected),
				       '' if len(unexpected) == 1 else 's'))
		for h in unexpected:
			print('# %s: no %s; fix the name or list it in '
			      'PRIVATE_HEADERS' % (h, os.path.join(args.sysinc, h)))
	else:
		print('ok %d - include/uapi/rdma: every header has a system '
		      'counterpart (%d checked, %d project-private)' % (
			      n, len(paired), len(orphans)))
	stale = sorted(set(PRIVATE_HEADERS) - set(orphans))
	for h in stale:
		print('# note: PRIVATE_HEADERS lists %s, which %s' % (
			h, 'has a system counterpart' if h in paired
			else 'does not exist'))
	print('# %d passed, %d failed (%.1f s)' % (n - failed, failed,
						  time.monotonic() - start))
	if scratch:
		shutil.rmtree(scratch, ignore_errors=True)
	return 1 if failed else 0


def merge_arches(errors, arches):
	"""One line per message; tag it with the ABIs it applies to, unless all."""
	order = []
	where = {}
	for msg, arch in errors:
		if msg not in where:
			order.append(msg)
			where[msg] = set()
		where[msg].add(arch)
	names = {a for a, _ in arches}
	out = []
	for msg in order:
		w = where[msg]
		if None in w or w >= names:
			out.append(msg)
		else:
			out.append('[%s] %s' % (', '.join(sorted(w)), msg))
	return out


if __name__ == '__main__':
	sys.exit(main())
