//! Schema rows for assets (see [`crate::xml::schema`]).

use super::{BUILTIN, COLORSPACE, FALSETRUEAUTO, MARK, MESHBUILTIN, MESHINERTIA, TEXTURE};
use crate::xml::schema::{
    AttrSpec as A, Card, ElementSpec as E,
    Kind::{Bool, Chars, Float, Int, Keyword, Real, Text},
    Rule as R, MANY,
};

/// The rows of this part of the schema.
#[rustfmt::skip]
pub(crate) static ROWS: &[E] = &[
    E {
        id: "asset",
        tag: "asset",
        attrs: &[],
        rules: &[],
        children: &[
            ("mesh", Card::Many), ("hfield", Card::Many), ("skin", Card::Many),
            ("texture", Card::Many), ("material", Card::Many), ("model", Card::Many),
        ],
    },
    E {
        id: "mesh",
        tag: "mesh",
        attrs: &[
            A::new("name", Text), A::new("class", Text), A::new("content_type", Text),
            A::new("file", Text), A::new("vertex", Float(0, MANY)),
            A::new("normal", Float(0, MANY)), A::new("texcoord", Float(0, MANY)),
            A::new("face", Int(0, MANY)), A::new("refpos", Real(3, 3)),
            A::new("refquat", Real(4, 4)), A::new("scale", Real(3, 3)),
            A::new("smoothnormal", Bool), A::new("maxhullvert", Int(1, 1)),
            A::new("inertia", Keyword(MESHINERTIA)), A::new("builtin", Keyword(MESHBUILTIN)),
            A::new("params", Real(0, MANY)), A::new("material", Text),
        ],
        rules: &[
            R::Exclusive(&[&["builtin"], &["file"]]), R::Exclusive(&[&["builtin"], &["vertex"]]),
        ],
        children: &[("plugin", Card::Many)],
    },
    E {
        id: "plugin",
        tag: "plugin",
        attrs: &[A::new("plugin", Text), A::new("instance", Text)],
        rules: &[],
        children: &[("config", Card::Many)],
    },
    E {
        id: "hfield",
        tag: "hfield",
        attrs: &[
            A::new("name", Text), A::new("content_type", Text), A::new("file", Text),
            A::new("nrow", Int(1, 1)), A::new("ncol", Int(1, 1)),
            A::new("size", Real(4, 4)).required(), A::new("elevation", Real(0, MANY)),
        ],
        rules: &[],
        children: &[],
    },
    E {
        id: "skin",
        tag: "skin",
        attrs: &[
            A::new("name", Text), A::new("file", Text), A::new("material", Text),
            A::new("rgba", Float(4, 4)), A::new("inflate", Float(1, 1)),
            A::new("vertex", Float(0, MANY)), A::new("texcoord", Float(0, MANY)),
            A::new("face", Int(0, MANY)), A::new("group", Int(1, 1)),
        ],
        rules: &[],
        children: &[("bone", Card::Many)],
    },
    E {
        id: "bone",
        tag: "bone",
        attrs: &[
            A::new("body", Text).required(), A::new("bindpos", Real(3, 3)),
            A::new("bindquat", Real(4, 4)), A::new("vertid", Int(0, MANY)),
            A::new("vertweight", Float(0, MANY)),
        ],
        rules: &[],
        children: &[],
    },
    E {
        id: "texture",
        tag: "texture",
        attrs: &[
            A::new("name", Text), A::new("type", Keyword(TEXTURE)),
            A::new("colorspace", Keyword(COLORSPACE)), A::new("content_type", Text),
            A::new("file", Text), A::new("gridsize", Int(2, 2)), A::new("gridlayout", Chars(1, 12)),
            A::new("fileright", Text), A::new("fileleft", Text), A::new("fileup", Text),
            A::new("filedown", Text), A::new("filefront", Text), A::new("fileback", Text),
            A::new("builtin", Keyword(BUILTIN)), A::new("rgb1", Real(3, 3)),
            A::new("rgb2", Real(3, 3)), A::new("mark", Keyword(MARK)),
            A::new("markrgb", Real(3, 3)), A::new("random", Real(1, 1)), A::new("width", Int(1, 1)),
            A::new("height", Int(1, 1)), A::new("hflip", Bool), A::new("vflip", Bool),
            A::new("nchannel", Int(1, 1)), A::new("class", Text),
            A::new("embed", Keyword(FALSETRUEAUTO)),
        ],
        rules: &[],
        children: &[],
    },
    E {
        id: "material",
        tag: "material",
        attrs: &[
            A::new("name", Text), A::new("class", Text), A::new("texture", Text),
            A::new("texrepeat", Float(2, 2)), A::new("texuniform", Bool),
            A::new("emission", Float(1, 1)), A::new("specular", Float(1, 1)),
            A::new("shininess", Float(1, 1)), A::new("reflectance", Float(1, 1)),
            A::new("metallic", Float(1, 1)), A::new("roughness", Float(1, 1)),
            A::new("rgba", Float(4, 4)),
        ],
        rules: &[],
        children: &[("layer", Card::Many)],
    },
    E {
        id: "model",
        tag: "model",
        attrs: &[A::new("name", Text), A::new("file", Text), A::new("content_type", Text)],
        rules: &[],
        children: &[],
    },
];
