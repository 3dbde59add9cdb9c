//! `#[derive(Xbf)]`: implements `xbf::fast::{Describe, Encode, Decode}`
//! for a type that also derives serde's `Serialize` and `Deserialize`,
//! giving the bytes and metadata of the serde path (`xbf::to_vec`) without
//! serde's per-value calls. Use it through the `xbf` crate (feature
//! `derive`), as `#[derive(xbf::Xbf)]`.
//!
//! The serde attributes that change a type's XBF metadata are followed:
//! `rename` and `rename_all` (on the type, its fields and variants),
//! `transparent`, and `with = "serde_bytes"` (the field is XBF bytes).
//! Attributes that only matter to the serde path's name matching
//! (`default`, `alias`, `deny_unknown_fields`, `borrow`, `bound`,
//! `expecting`, `crate`) are accepted and left to it. Every other serde
//! attribute (skipping, flattening, other enum representations, custom
//! (de)serializers) makes the derive fail to compile, naming the
//! attribute: such types use the serde path.

use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{parse_macro_input, Data, DeriveInput, Fields, GenericParam, Ident, LitStr};

/// Derives `xbf::fast::Describe`, `Encode` and `Decode`; see the crate docs.
#[proc_macro_derive(Xbf, attributes(serde))]
pub fn derive_xbf(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand(&input).unwrap_or_else(syn::Error::into_compile_error).into()
}

#[derive(Clone, Copy)]
enum Rule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl Rule {
    fn parse(s: &LitStr) -> syn::Result<Rule> {
        Ok(match s.value().as_str() {
            "lowercase" => Rule::Lower,
            "UPPERCASE" => Rule::Upper,
            "PascalCase" => Rule::Pascal,
            "camelCase" => Rule::Camel,
            "snake_case" => Rule::Snake,
            "SCREAMING_SNAKE_CASE" => Rule::ScreamingSnake,
            "kebab-case" => Rule::Kebab,
            "SCREAMING-KEBAB-CASE" => Rule::ScreamingKebab,
            other => return Err(syn::Error::new(s.span(), format!("unknown rename_all rule {other:?}"))),
        })
    }

    /// serde's rule for variant names (written in PascalCase).
    fn variant(self, v: &str) -> String {
        let snake = || {
            let mut s = String::new();
            for (i, c) in v.char_indices() {
                if i > 0 && c.is_uppercase() {
                    s.push('_');
                }
                s.push(c.to_ascii_lowercase());
            }
            s
        };
        match self {
            Rule::Lower => v.to_ascii_lowercase(),
            Rule::Upper => v.to_ascii_uppercase(),
            Rule::Pascal => v.to_owned(),
            Rule::Camel => v[..1].to_ascii_lowercase() + &v[1..],
            Rule::Snake => snake(),
            Rule::ScreamingSnake => snake().to_ascii_uppercase(),
            Rule::Kebab => snake().replace('_', "-"),
            Rule::ScreamingKebab => snake().to_ascii_uppercase().replace('_', "-"),
        }
    }

    /// serde's rule for field names (written in snake_case).
    fn field(self, f: &str) -> String {
        let pascal = || {
            let mut s = String::new();
            let mut cap = true;
            for c in f.chars() {
                if c == '_' {
                    cap = true;
                } else if cap {
                    s.extend(c.to_uppercase());
                    cap = false;
                } else {
                    s.push(c);
                }
            }
            s
        };
        match self {
            Rule::Lower | Rule::Snake => f.to_owned(),
            Rule::Upper | Rule::ScreamingSnake => f.to_ascii_uppercase(),
            Rule::Pascal => pascal(),
            Rule::Camel => {
                let p = pascal();
                let mut cs = p.chars();
                match cs.next() {
                    Some(c) => c.to_lowercase().chain(cs).collect(),
                    None => p,
                }
            }
            Rule::Kebab => f.replace('_', "-"),
            Rule::ScreamingKebab => f.to_ascii_uppercase().replace('_', "-"),
        }
    }
}

#[derive(Default)]
struct Attrs {
    rename: Option<String>,
    rename_all: Option<Rule>,
    transparent: bool,
    bytes: bool,
}

/// Reads the `#[serde(...)]` attributes of a container, field or variant.
fn serde_attrs(attrs: &[syn::Attribute], place: &str) -> syn::Result<Attrs> {
    let mut out = Attrs::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        attr.parse_nested_meta(|meta| {
            let key = meta.path.to_token_stream().to_string();
            match key.as_str() {
                "rename" => {
                    let s: LitStr = meta.value().map_err(|_| meta.error(split(&key)))?.parse()?;
                    out.rename = Some(s.value());
                }
                "rename_all" if place == "container" => {
                    let s: LitStr = meta.value().map_err(|_| meta.error(split(&key)))?.parse()?;
                    out.rename_all = Some(Rule::parse(&s)?);
                }
                "transparent" if place == "container" => out.transparent = true,
                "with" if place == "field" => {
                    let s: LitStr = meta.value()?.parse()?;
                    if s.value() != "serde_bytes" {
                        return Err(meta.error(unsupported(&format!("with = {:?}", s.value()))));
                    }
                    out.bytes = true;
                }
                // Only the serde path's name matching reads these.
                "default" | "alias" | "deny_unknown_fields" | "borrow" | "bound" | "expecting" | "crate" => {
                    if meta.input.peek(syn::Token![=]) {
                        let _: syn::Expr = meta.value()?.parse()?;
                    } else if meta.input.peek(syn::token::Paren) {
                        let _content;
                        syn::parenthesized!(_content in meta.input);
                        let _: TokenStream = _content.parse()?;
                    }
                }
                other => return Err(meta.error(unsupported(other))),
            }
            Ok(())
        })?;
    }
    Ok(out)
}

fn split(key: &str) -> String {
    format!("#[derive(Xbf)] needs one name for `{key}`, not separate serialize and deserialize names")
}

fn unsupported(attr: &str) -> String {
    format!(
        "#[derive(Xbf)] does not support #[serde({attr})], which changes the type's XBF form: \
         remove the derive and use the serde path (xbf::to_vec / xbf::from_slice)"
    )
}

/// One field, as the metadata names it.
struct Field {
    member: TokenStream,
    name: String,
    ty: syn::Type,
    bytes: bool,
}

fn fields_of(fields: &Fields, rule: Option<Rule>) -> syn::Result<Vec<Field>> {
    fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let a = serde_attrs(&f.attrs, "field")?;
            let (member, name) = match &f.ident {
                Some(id) => {
                    let raw = id.unraw().to_string();
                    let name = a.rename.clone().unwrap_or_else(|| rule.map_or(raw.clone(), |r| r.field(&raw)));
                    (id.to_token_stream(), name)
                }
                None => (syn::Index::from(i).to_token_stream(), i.to_string()),
            };
            Ok(Field { member, name, ty: f.ty.clone(), bytes: a.bytes })
        })
        .collect()
}

/// The forms a struct or a variant's payload takes in XBF metadata.
enum Shape {
    Unit,
    /// One unnamed field (or `transparent`): the field's own type.
    Newtype,
    Tuple,
    Struct,
}

fn shape(fields: &Fields, transparent: bool) -> Shape {
    match fields {
        Fields::Unit => Shape::Unit,
        Fields::Unnamed(u) if u.unnamed.len() == 1 => Shape::Newtype,
        _ if transparent => Shape::Newtype,
        Fields::Unnamed(_) => Shape::Tuple,
        Fields::Named(_) => Shape::Struct,
    }
}

fn min_of(f: &Field, v2: bool) -> TokenStream {
    let ty = &f.ty;
    match (f.bytes, v2) {
        (true, true) => quote!(1u64),
        (true, false) => quote!(8u64),
        (false, true) => quote!(<#ty as ::xbf::fast::Describe>::MIN_V2),
        (false, false) => quote!(<#ty as ::xbf::fast::Describe>::MIN_V1),
    }
}

fn describe_of(f: &Field) -> TokenStream {
    let ty = &f.ty;
    if f.bytes {
        quote!(::xbf::Metadata::Primitive(::xbf::PrimitiveType::Bytes))
    } else {
        quote!(<#ty as ::xbf::fast::Describe>::describe(cx)?)
    }
}

fn encode_of(f: &Field, value: TokenStream) -> TokenStream {
    if f.bytes {
        quote!(w.bytes(::xbf::fast::BytesField::as_bytes(#value));)
    } else {
        quote!(::xbf::fast::Encode::encode(#value, w);)
    }
}

/// Decodes field `f`, adding `seg` to the path of an error.
fn decode_of(f: &Field, seg: TokenStream) -> TokenStream {
    let ty = &f.ty;
    let read = if f.bytes {
        quote!(r.bytes().map(<#ty as ::xbf::fast::BytesField<'de>>::from_bytes))
    } else {
        quote!(<#ty as ::xbf::fast::Decode<'de>>::decode(r))
    };
    quote! {
        match #read {
            ::core::result::Result::Ok(v) => v,
            ::core::result::Result::Err(e) => return ::core::result::Result::Err(e.within(#seg)),
        }
    }
}

fn field_seg(name: &str) -> TokenStream {
    quote!(::xbf::PathSegment::Field(#name.into()))
}

fn position_seg(i: usize) -> TokenStream {
    let i = i as u64;
    quote!(::xbf::PathSegment::Position(#i))
}

/// Metadata, minimum sizes, and encode/decode bodies of one payload.
struct Parts {
    describe: TokenStream,
    min_v2: TokenStream,
    min_v1: TokenStream,
    plain: TokenStream,
}

/// The plain size (see `Describe::PLAIN`) of these fields together.
fn plain_of(fields: &[Field]) -> TokenStream {
    if fields.iter().any(|f| f.bytes) {
        return quote!(::core::option::Option::None);
    }
    let ps = fields.iter().map(|f| {
        let ty = &f.ty;
        quote!(<#ty as ::xbf::fast::Describe>::PLAIN)
    });
    quote!(::xbf::fast::plain_sum(&[#(#ps),*]))
}

fn parts(name: &str, shape: &Shape, fields: &[Field]) -> Parts {
    let sum = |v2: bool| {
        let mins = fields.iter().map(|f| min_of(f, v2));
        quote!(0u64 #(.saturating_add(#mins))*)
    };
    match shape {
        Shape::Unit => Parts {
            describe: quote!(::xbf::Metadata::UNIT),
            min_v2: quote!(0u64),
            min_v1: quote!(0u64),
            plain: quote!(::core::option::Option::None),
        },
        Shape::Newtype => {
            let f = &fields[0];
            Parts {
                describe: describe_of(f),
                min_v2: min_of(f, true),
                min_v1: min_of(f, false),
                plain: plain_of(fields),
            }
        }
        Shape::Tuple => {
            let ds = fields.iter().map(describe_of);
            Parts {
                describe: quote!(::xbf::Metadata::tuple([#(#ds),*])),
                min_v2: sum(true),
                min_v1: sum(false),
                plain: plain_of(fields),
            }
        }
        Shape::Struct => {
            let ds = fields.iter().map(|f| {
                let n = &f.name;
                let d = describe_of(f);
                quote!((#n, #d))
            });
            let tuples: Vec<TokenStream> = ds.collect();
            let describe = if tuples.is_empty() {
                quote!(::xbf::Metadata::from(::xbf::StructMetadata::new::<&str, ::xbf::Metadata>(#name, [])?))
            } else {
                quote!(::xbf::Metadata::from(::xbf::StructMetadata::new(#name, [#(#tuples),*])?))
            };
            Parts { describe, min_v2: sum(true), min_v1: sum(false), plain: plain_of(fields) }
        }
    }
}

fn expand(input: &DeriveInput) -> syn::Result<TokenStream> {
    let cattrs = serde_attrs(&input.attrs, "container")?;
    let ident = &input.ident;
    let type_name = cattrs.rename.clone().unwrap_or_else(|| ident.unraw().to_string());

    let mut plain = quote!(::core::option::Option::None);
    let mut decode_plain = quote!();
    let mut decode_column = quote!();
    let (describe, min_v2, min_v1, encode, decode) = match &input.data {
        Data::Struct(s) => {
            let fields = fields_of(&s.fields, cattrs.rename_all)?;
            let shape = shape(&s.fields, cattrs.transparent);
            if cattrs.transparent && fields.len() != 1 {
                return Err(syn::Error::new(input.span(), "#[serde(transparent)] needs exactly one field"));
            }
            let p = parts(&type_name, &shape, &fields);
            let encs = fields.iter().map(|f| {
                let m = &f.member;
                encode_of(f, quote!(&self.#m))
            });
            let encode = quote!(#(#encs)*);
            let decs = fields.iter().enumerate().map(|(i, f)| {
                let m = &f.member;
                let seg = match shape {
                    Shape::Newtype => None,
                    Shape::Tuple => Some(position_seg(i)),
                    _ => Some(field_seg(&f.name)),
                };
                let d = match seg {
                    Some(seg) => decode_of(f, seg),
                    None => decode_newtype(f),
                };
                quote!(#m: #d)
            });
            let decode = match shape {
                // The field's own errors, paths and all (serde's newtypes
                // are transparent).
                Shape::Newtype => {
                    let (m, ty) = (&fields[0].member, &fields[0].ty);
                    if fields[0].bytes {
                        quote!(r.bytes().map(|b| Self { #m: <#ty as ::xbf::fast::BytesField<'de>>::from_bytes(b) }))
                    } else {
                        quote!(<#ty as ::xbf::fast::Decode<'de>>::decode(r).map(|v| Self { #m: v }))
                    }
                }
                _ => quote!(::core::result::Result::Ok(Self { #(#decs),* })),
            };
            if !matches!(shape, Shape::Unit) && !fields.iter().any(|f| f.bytes) {
                plain = p.plain.clone();
                let parts = fields.iter().map(|f| {
                    let (m, ty) = (&f.member, &f.ty);
                    quote! {
                        #m: {
                            let n = <#ty as ::xbf::fast::Describe>::PLAIN?;
                            let v = <#ty as ::xbf::fast::Decode<'de>>::decode_plain(b.get(at..at + n)?)?;
                            at += n;
                            v
                        }
                    }
                });
                decode_plain = quote! {
                    #[inline]
                    #[allow(unused_assignments)]
                    fn decode_plain(b: &'de [u8]) -> ::core::option::Option<Self> {
                        let mut at = 0usize;
                        ::core::option::Option::Some(Self { #(#parts),* })
                    }
                };
            }
            decode_column = column_of(&shape, &fields);
            (p.describe, p.min_v2, p.min_v1, encode, decode)
        }
        Data::Enum(e) => {
            if e.variants.is_empty() {
                return Err(syn::Error::new(input.span(), "#[derive(Xbf)] needs at least one variant"));
            }
            if cattrs.transparent {
                return Err(syn::Error::new(input.span(), unsupported("transparent")));
            }
            let count = e.variants.len();
            let mut entries = Vec::new();
            let mut enc_arms = Vec::new();
            let mut dec_arms = Vec::new();
            for (i, v) in e.variants.iter().enumerate() {
                let va = serde_attrs(&v.attrs, "variant")?;
                let raw = v.ident.unraw().to_string();
                let vname =
                    va.rename.clone().unwrap_or_else(|| cattrs.rename_all.map_or(raw.clone(), |r| r.variant(&raw)));
                let fields = fields_of(&v.fields, None)?;
                let shape = shape(&v.fields, false);
                let p = parts(&vname, &shape, &fields);
                let d = p.describe;
                entries.push(quote!((#vname, #d)));
                let vid = &v.ident;
                let binds: Vec<Ident> =
                    (0..fields.len()).map(|k| Ident::new(&format!("__f{k}"), Span::call_site())).collect();
                let encs = fields.iter().zip(&binds).map(|(f, b)| encode_of(f, quote!(#b)));
                let pat = match &v.fields {
                    Fields::Unit => quote!(Self::#vid),
                    Fields::Unnamed(_) => quote!(Self::#vid(#(#binds),*)),
                    Fields::Named(_) => {
                        let ms = fields.iter().map(|f| &f.member);
                        quote!(Self::#vid { #(#ms: #binds),* })
                    }
                };
                enc_arms.push(quote!(#pat => { w.variant(#i); #(#encs)* }));
                let decs: Vec<TokenStream> = fields
                    .iter()
                    .enumerate()
                    .map(|(k, f)| match shape {
                        Shape::Newtype => decode_newtype(f),
                        Shape::Tuple => decode_of(f, position_seg(k)),
                        _ => decode_of(f, field_seg(&f.name)),
                    })
                    .collect();
                let build = match &v.fields {
                    Fields::Unit => quote!(Self::#vid),
                    Fields::Unnamed(_) => quote!(Self::#vid(#(#decs),*)),
                    Fields::Named(_) => {
                        let ms = fields.iter().map(|f| &f.member);
                        quote!(Self::#vid { #(#ms: #decs),* })
                    }
                };
                let seg = field_seg(&vname);
                dec_arms.push(quote! {
                    #i => (|| -> ::xbf::Result<Self> { ::core::result::Result::Ok(#build) })().map_err(|e| e.within(#seg))
                });
            }
            let describe = quote!(::xbf::Metadata::from(::xbf::EnumMetadata::new(#type_name, [#(#entries),*])?));
            let encode = quote!(match self { #(#enc_arms)* });
            let decode = quote! {
                match r.variant(#count, #type_name)? {
                    #(#dec_arms,)*
                    // r.variant only returns indexes below the count.
                    i => ::core::result::Result::Err(::xbf::Error::new(
                        ::xbf::ErrorKind::UnknownVariant,
                        ::std::format!("enum {} has no variant {}", #type_name, i),
                    )),
                }
            };
            (describe, quote!(1u64), quote!(8u64), encode, decode)
        }
        Data::Union(u) => return Err(syn::Error::new(u.union_token.span(), "#[derive(Xbf)] does not support unions")),
    };

    let generics = &input.generics;
    let (_, ty_generics, _) = generics.split_for_impl();
    let bounded = |bound: TokenStream| {
        let mut g = generics.clone();
        for p in g.params.iter_mut() {
            if let GenericParam::Type(t) = p {
                t.bounds.push(syn::parse2(bound.clone()).expect("a trait bound"));
            }
        }
        g
    };
    let g_desc = bounded(quote!(::xbf::fast::Describe));
    let (i_desc, _, w_desc) = g_desc.split_for_impl();
    let g_enc = bounded(quote!(::xbf::fast::Encode));
    let (i_enc, _, w_enc) = g_enc.split_for_impl();

    // Decode<'de>: 'de outlives every lifetime of the type; type
    // parameters decode from the same input.
    let mut g_dec = bounded(quote!(::xbf::fast::Decode<'de>));
    let de: syn::LifetimeParam = syn::parse_quote!('de);
    let mut de_param = de.clone();
    for p in generics.params.iter() {
        if let GenericParam::Lifetime(l) = p {
            de_param.bounds.push(l.lifetime.clone());
        }
    }
    g_dec.params.insert(0, GenericParam::Lifetime(de_param));
    g_dec.make_where_clause().predicates.push(syn::parse_quote!(Self: ::xbf::fast::__serde::Deserialize<'de>));
    let (i_dec, _, w_dec) = g_dec.split_for_impl();

    Ok(quote! {
        const _: () = {
            #[automatically_derived]
            impl #i_desc ::xbf::fast::Describe for #ident #ty_generics #w_desc {
                const MIN_V2: u64 = #min_v2;
                const MIN_V1: u64 = #min_v1;
                const PLAIN: ::core::option::Option<usize> = #plain;
                #[allow(clippy::needless_question_mark)]
                fn describe(cx: &mut ::xbf::fast::Describer) -> ::xbf::Result<::xbf::Metadata> {
                    cx.enter(::core::any::type_name::<Self>())?;
                    let r = (|| -> ::xbf::Result<::xbf::Metadata> { ::core::result::Result::Ok(#describe) })();
                    cx.leave();
                    r
                }
            }
            #[automatically_derived]
            impl #i_enc ::xbf::fast::Encode for #ident #ty_generics #w_enc {
                #[inline]
                fn encode(&self, w: &mut ::xbf::fast::Writer) {
                    #encode
                }
            }
            #[automatically_derived]
            impl #i_dec ::xbf::fast::Decode<'de> for #ident #ty_generics #w_dec {
                #[inline]
                fn decode(r: &mut ::xbf::fast::Reader<'de, '_>) -> ::xbf::Result<Self> {
                    #decode
                }
                #decode_plain
                #decode_column
            }
        };
    })
}

/// A struct's whole-column reader (`Decode::decode_column`): each field's
/// column read whole, then the records put together from them. Structs
/// without fields keep the default (serde).
fn column_of(shape: &Shape, fields: &[Field]) -> TokenStream {
    if fields.is_empty() {
        return quote!();
    }
    let sig = quote! {
        fn decode_column(
            col: ::xbf::fast::WholeColumn<'_, '_, 'de>,
        ) -> ::xbf::Result<::std::vec::Vec<Self>>
    };
    let read = |f: &Field, col: TokenStream| {
        let ty = &f.ty;
        if f.bytes {
            quote!(#col.bytes(
                <#ty as ::xbf::fast::BytesField<'de>>::from_bytes,
                <#ty as ::xbf::fast::BytesField<'de>>::from_made,
            ))
        } else {
            quote!(<#ty as ::xbf::fast::Decode<'de>>::decode_column(#col))
        }
    };
    if let Shape::Newtype = shape {
        let m = &fields[0].member;
        let r = read(&fields[0], quote!(col));
        return quote! {
            #sig {
                ::core::result::Result::Ok(#r?.into_iter().map(|v| Self { #m: v }).collect())
            }
        };
    }
    let vars: Vec<syn::Ident> = (0..fields.len()).map(|i| quote::format_ident!("__f{}", i)).collect();
    let reads = fields.iter().zip(&vars).enumerate().map(|(i, (f, v))| {
        let seg = match shape {
            Shape::Tuple => position_seg(i),
            _ => field_seg(&f.name),
        };
        let r = read(f, quote!(fields.next_field()?));
        quote! {
            let mut #v = match #r {
                ::core::result::Result::Ok(v) => v.into_iter(),
                ::core::result::Result::Err(e) => return ::core::result::Result::Err(e.within(#seg)),
            };
        }
    });
    let puts = fields.iter().zip(&vars).map(|(f, v)| {
        let m = &f.member;
        quote! {
            #m: match #v.next() {
                ::core::option::Option::Some(v) => v,
                ::core::option::Option::None => return ::core::result::Result::Err(fields.short()),
            }
        }
    });
    let first = &vars[0];
    quote! {
        #sig {
            let n = col.len();
            let mut fields = col.fields()?;
            #(#reads)*
            fields.finish()?;
            // As many as the first field's column holds, which is in memory.
            let mut out = ::std::vec::Vec::with_capacity(#first.len());
            for _ in 0..n {
                out.push(Self { #(#puts),* });
            }
            ::core::result::Result::Ok(out)
        }
    }
}

/// A newtype's only field: its errors keep their path (serde's newtypes
/// are transparent).
fn decode_newtype(f: &Field) -> TokenStream {
    let ty = &f.ty;
    if f.bytes {
        quote!(<#ty as ::xbf::fast::BytesField<'de>>::from_bytes(r.bytes()?))
    } else {
        quote!(<#ty as ::xbf::fast::Decode<'de>>::decode(r)?)
    }
}
