use serde::{Deserialize, Serialize};
// Generated: the LBS seed's shape, a struct of 160 fields (mostly strings).
#[cfg_attr(feature = "apache-avro", derive(apache_avro::AvroSchema))]
#[cfg_attr(feature = "tree-buf-wide", derive(tree_buf::Encode, tree_buf::Decode))]
#[cfg_attr(feature = "lbs", derive(lbs::LBSWrite, lbs::LBSRead))]
#[derive(Serialize, Deserialize, xbf::Xbf, PartialEq, Clone, Debug, Default)]
pub struct Wide {
    #[cfg_attr(feature = "lbs", lbs(id(0)))]
    pub f000: String,
    #[cfg_attr(feature = "lbs", lbs(id(1)))]
    pub f001: String,
    #[cfg_attr(feature = "lbs", lbs(id(2)))]
    pub f002: String,
    #[cfg_attr(feature = "lbs", lbs(id(3)))]
    pub f003: u64,
    #[cfg_attr(feature = "lbs", lbs(id(4)))]
    pub f004: String,
    #[cfg_attr(feature = "lbs", lbs(id(5)))]
    pub f005: f64,
    #[cfg_attr(feature = "lbs", lbs(id(6)))]
    pub f006: String,
    #[cfg_attr(feature = "lbs", lbs(id(7)))]
    pub f007: Option<String>,
    #[cfg_attr(feature = "lbs", lbs(id(8)))]
    pub f008: String,
    #[cfg_attr(feature = "lbs", lbs(id(9)))]
    pub f009: String,
    #[cfg_attr(feature = "lbs", lbs(id(10)))]
    pub f010: String,
    #[cfg_attr(feature = "lbs", lbs(id(11)))]
    pub f011: u64,
    #[cfg_attr(feature = "lbs", lbs(id(12)))]
    pub f012: String,
    #[cfg_attr(feature = "lbs", lbs(id(13)))]
    pub f013: f64,
    #[cfg_attr(feature = "lbs", lbs(id(14)))]
    pub f014: String,
    #[cfg_attr(feature = "lbs", lbs(id(15)))]
    pub f015: String,
    #[cfg_attr(feature = "lbs", lbs(id(16)))]
    pub f016: String,
    #[cfg_attr(feature = "lbs", lbs(id(17)))]
    pub f017: String,
    #[cfg_attr(feature = "lbs", lbs(id(18)))]
    pub f018: String,
    #[cfg_attr(feature = "lbs", lbs(id(19)))]
    pub f019: u64,
    #[cfg_attr(feature = "lbs", lbs(id(20)))]
    pub f020: String,
    #[cfg_attr(feature = "lbs", lbs(id(21)))]
    pub f021: f64,
    #[cfg_attr(feature = "lbs", lbs(id(22)))]
    pub f022: String,
    #[cfg_attr(feature = "lbs", lbs(id(23)))]
    pub f023: Option<String>,
    #[cfg_attr(feature = "lbs", lbs(id(24)))]
    pub f024: String,
    #[cfg_attr(feature = "lbs", lbs(id(25)))]
    pub f025: String,
    #[cfg_attr(feature = "lbs", lbs(id(26)))]
    pub f026: String,
    #[cfg_attr(feature = "lbs", lbs(id(27)))]
    pub f027: u64,
    #[cfg_attr(feature = "lbs", lbs(id(28)))]
    pub f028: String,
    #[cfg_attr(feature = "lbs", lbs(id(29)))]
    pub f029: f64,
    #[cfg_attr(feature = "lbs", lbs(id(30)))]
    pub f030: String,
    #[cfg_attr(feature = "lbs", lbs(id(31)))]
    pub f031: String,
    #[cfg_attr(feature = "lbs", lbs(id(32)))]
    pub f032: String,
    #[cfg_attr(feature = "lbs", lbs(id(33)))]
    pub f033: String,
    #[cfg_attr(feature = "lbs", lbs(id(34)))]
    pub f034: String,
    #[cfg_attr(feature = "lbs", lbs(id(35)))]
    pub f035: u64,
    #[cfg_attr(feature = "lbs", lbs(id(36)))]
    pub f036: String,
    #[cfg_attr(feature = "lbs", lbs(id(37)))]
    pub f037: f64,
    #[cfg_attr(feature = "lbs", lbs(id(38)))]
    pub f038: String,
    #[cfg_attr(feature = "lbs", lbs(id(39)))]
    pub f039: Option<String>,
    #[cfg_attr(feature = "lbs", lbs(id(40)))]
    pub f040: String,
    #[cfg_attr(feature = "lbs", lbs(id(41)))]
    pub f041: String,
    #[cfg_attr(feature = "lbs", lbs(id(42)))]
    pub f042: String,
    #[cfg_attr(feature = "lbs", lbs(id(43)))]
    pub f043: u64,
    #[cfg_attr(feature = "lbs", lbs(id(44)))]
    pub f044: String,
    #[cfg_attr(feature = "lbs", lbs(id(45)))]
    pub f045: f64,
    #[cfg_attr(feature = "lbs", lbs(id(46)))]
    pub f046: String,
    #[cfg_attr(feature = "lbs", lbs(id(47)))]
    pub f047: String,
    #[cfg_attr(feature = "lbs", lbs(id(48)))]
    pub f048: String,
    #[cfg_attr(feature = "lbs", lbs(id(49)))]
    pub f049: String,
    #[cfg_attr(feature = "lbs", lbs(id(50)))]
    pub f050: String,
    #[cfg_attr(feature = "lbs", lbs(id(51)))]
    pub f051: u64,
    #[cfg_attr(feature = "lbs", lbs(id(52)))]
    pub f052: String,
    #[cfg_attr(feature = "lbs", lbs(id(53)))]
    pub f053: f64,
    #[cfg_attr(feature = "lbs", lbs(id(54)))]
    pub f054: String,
    #[cfg_attr(feature = "lbs", lbs(id(55)))]
    pub f055: Option<String>,
    #[cfg_attr(feature = "lbs", lbs(id(56)))]
    pub f056: String,
    #[cfg_attr(feature = "lbs", lbs(id(57)))]
    pub f057: String,
    #[cfg_attr(feature = "lbs", lbs(id(58)))]
    pub f058: String,
    #[cfg_attr(feature = "lbs", lbs(id(59)))]
    pub f059: u64,
    #[cfg_attr(feature = "lbs", lbs(id(60)))]
    pub f060: String,
    #[cfg_attr(feature = "lbs", lbs(id(61)))]
    pub f061: f64,
    #[cfg_attr(feature = "lbs", lbs(id(62)))]
    pub f062: String,
    #[cfg_attr(feature = "lbs", lbs(id(63)))]
    pub f063: String,
    #[cfg_attr(feature = "lbs", lbs(id(64)))]
    pub f064: String,
    #[cfg_attr(feature = "lbs", lbs(id(65)))]
    pub f065: String,
    #[cfg_attr(feature = "lbs", lbs(id(66)))]
    pub f066: String,
    #[cfg_attr(feature = "lbs", lbs(id(67)))]
    pub f067: u64,
    #[cfg_attr(feature = "lbs", lbs(id(68)))]
    pub f068: String,
    #[cfg_attr(feature = "lbs", lbs(id(69)))]
    pub f069: f64,
    #[cfg_attr(feature = "lbs", lbs(id(70)))]
    pub f070: String,
    #[cfg_attr(feature = "lbs", lbs(id(71)))]
    pub f071: Option<String>,
    #[cfg_attr(feature = "lbs", lbs(id(72)))]
    pub f072: String,
    #[cfg_attr(feature = "lbs", lbs(id(73)))]
    pub f073: String,
    #[cfg_attr(feature = "lbs", lbs(id(74)))]
    pub f074: String,
    #[cfg_attr(feature = "lbs", lbs(id(75)))]
    pub f075: u64,
    #[cfg_attr(feature = "lbs", lbs(id(76)))]
    pub f076: String,
    #[cfg_attr(feature = "lbs", lbs(id(77)))]
    pub f077: f64,
    #[cfg_attr(feature = "lbs", lbs(id(78)))]
    pub f078: String,
    #[cfg_attr(feature = "lbs", lbs(id(79)))]
    pub f079: String,
    #[cfg_attr(feature = "lbs", lbs(id(80)))]
    pub f080: String,
    #[cfg_attr(feature = "lbs", lbs(id(81)))]
    pub f081: String,
    #[cfg_attr(feature = "lbs", lbs(id(82)))]
    pub f082: String,
    #[cfg_attr(feature = "lbs", lbs(id(83)))]
    pub f083: u64,
    #[cfg_attr(feature = "lbs", lbs(id(84)))]
    pub f084: String,
    #[cfg_attr(feature = "lbs", lbs(id(85)))]
    pub f085: f64,
    #[cfg_attr(feature = "lbs", lbs(id(86)))]
    pub f086: String,
    #[cfg_attr(feature = "lbs", lbs(id(87)))]
    pub f087: Option<String>,
    #[cfg_attr(feature = "lbs", lbs(id(88)))]
    pub f088: String,
    #[cfg_attr(feature = "lbs", lbs(id(89)))]
    pub f089: String,
    #[cfg_attr(feature = "lbs", lbs(id(90)))]
    pub f090: String,
    #[cfg_attr(feature = "lbs", lbs(id(91)))]
    pub f091: u64,
    #[cfg_attr(feature = "lbs", lbs(id(92)))]
    pub f092: String,
    #[cfg_attr(feature = "lbs", lbs(id(93)))]
    pub f093: f64,
    #[cfg_attr(feature = "lbs", lbs(id(94)))]
    pub f094: String,
    #[cfg_attr(feature = "lbs", lbs(id(95)))]
    pub f095: String,
    #[cfg_attr(feature = "lbs", lbs(id(96)))]
    pub f096: String,
    #[cfg_attr(feature = "lbs", lbs(id(97)))]
    pub f097: String,
    #[cfg_attr(feature = "lbs", lbs(id(98)))]
    pub f098: String,
    #[cfg_attr(feature = "lbs", lbs(id(99)))]
    pub f099: u64,
    #[cfg_attr(feature = "lbs", lbs(id(100)))]
    pub f100: String,
    #[cfg_attr(feature = "lbs", lbs(id(101)))]
    pub f101: f64,
    #[cfg_attr(feature = "lbs", lbs(id(102)))]
    pub f102: String,
    #[cfg_attr(feature = "lbs", lbs(id(103)))]
    pub f103: Option<String>,
    #[cfg_attr(feature = "lbs", lbs(id(104)))]
    pub f104: String,
    #[cfg_attr(feature = "lbs", lbs(id(105)))]
    pub f105: String,
    #[cfg_attr(feature = "lbs", lbs(id(106)))]
    pub f106: String,
    #[cfg_attr(feature = "lbs", lbs(id(107)))]
    pub f107: u64,
    #[cfg_attr(feature = "lbs", lbs(id(108)))]
    pub f108: String,
    #[cfg_attr(feature = "lbs", lbs(id(109)))]
    pub f109: f64,
    #[cfg_attr(feature = "lbs", lbs(id(110)))]
    pub f110: String,
    #[cfg_attr(feature = "lbs", lbs(id(111)))]
    pub f111: String,
    #[cfg_attr(feature = "lbs", lbs(id(112)))]
    pub f112: String,
    #[cfg_attr(feature = "lbs", lbs(id(113)))]
    pub f113: String,
    #[cfg_attr(feature = "lbs", lbs(id(114)))]
    pub f114: String,
    #[cfg_attr(feature = "lbs", lbs(id(115)))]
    pub f115: u64,
    #[cfg_attr(feature = "lbs", lbs(id(116)))]
    pub f116: String,
    #[cfg_attr(feature = "lbs", lbs(id(117)))]
    pub f117: f64,
    #[cfg_attr(feature = "lbs", lbs(id(118)))]
    pub f118: String,
    #[cfg_attr(feature = "lbs", lbs(id(119)))]
    pub f119: Option<String>,
    #[cfg_attr(feature = "lbs", lbs(id(120)))]
    pub f120: String,
    #[cfg_attr(feature = "lbs", lbs(id(121)))]
    pub f121: String,
    #[cfg_attr(feature = "lbs", lbs(id(122)))]
    pub f122: String,
    #[cfg_attr(feature = "lbs", lbs(id(123)))]
    pub f123: u64,
    #[cfg_attr(feature = "lbs", lbs(id(124)))]
    pub f124: String,
    #[cfg_attr(feature = "lbs", lbs(id(125)))]
    pub f125: f64,
    #[cfg_attr(feature = "lbs", lbs(id(126)))]
    pub f126: String,
    #[cfg_attr(feature = "lbs", lbs(id(127)))]
    pub f127: String,
    #[cfg_attr(feature = "lbs", lbs(id(128)))]
    pub f128: String,
    #[cfg_attr(feature = "lbs", lbs(id(129)))]
    pub f129: String,
    #[cfg_attr(feature = "lbs", lbs(id(130)))]
    pub f130: String,
    #[cfg_attr(feature = "lbs", lbs(id(131)))]
    pub f131: u64,
    #[cfg_attr(feature = "lbs", lbs(id(132)))]
    pub f132: String,
    #[cfg_attr(feature = "lbs", lbs(id(133)))]
    pub f133: f64,
    #[cfg_attr(feature = "lbs", lbs(id(134)))]
    pub f134: String,
    #[cfg_attr(feature = "lbs", lbs(id(135)))]
    pub f135: Option<String>,
    #[cfg_attr(feature = "lbs", lbs(id(136)))]
    pub f136: String,
    #[cfg_attr(feature = "lbs", lbs(id(137)))]
    pub f137: String,
    #[cfg_attr(feature = "lbs", lbs(id(138)))]
    pub f138: String,
    #[cfg_attr(feature = "lbs", lbs(id(139)))]
    pub f139: u64,
    #[cfg_attr(feature = "lbs", lbs(id(140)))]
    pub f140: String,
    #[cfg_attr(feature = "lbs", lbs(id(141)))]
    pub f141: f64,
    #[cfg_attr(feature = "lbs", lbs(id(142)))]
    pub f142: String,
    #[cfg_attr(feature = "lbs", lbs(id(143)))]
    pub f143: String,
    #[cfg_attr(feature = "lbs", lbs(id(144)))]
    pub f144: String,
    #[cfg_attr(feature = "lbs", lbs(id(145)))]
    pub f145: String,
    #[cfg_attr(feature = "lbs", lbs(id(146)))]
    pub f146: String,
    #[cfg_attr(feature = "lbs", lbs(id(147)))]
    pub f147: u64,
    #[cfg_attr(feature = "lbs", lbs(id(148)))]
    pub f148: String,
    #[cfg_attr(feature = "lbs", lbs(id(149)))]
    pub f149: f64,
    #[cfg_attr(feature = "lbs", lbs(id(150)))]
    pub f150: String,
    #[cfg_attr(feature = "lbs", lbs(id(151)))]
    pub f151: Option<String>,
    #[cfg_attr(feature = "lbs", lbs(id(152)))]
    pub f152: String,
    #[cfg_attr(feature = "lbs", lbs(id(153)))]
    pub f153: String,
    #[cfg_attr(feature = "lbs", lbs(id(154)))]
    pub f154: String,
    #[cfg_attr(feature = "lbs", lbs(id(155)))]
    pub f155: u64,
    #[cfg_attr(feature = "lbs", lbs(id(156)))]
    pub f156: String,
    #[cfg_attr(feature = "lbs", lbs(id(157)))]
    pub f157: f64,
    #[cfg_attr(feature = "lbs", lbs(id(158)))]
    pub f158: String,
    #[cfg_attr(feature = "lbs", lbs(id(159)))]
    pub f159: String,
}
pub fn wide_sample() -> Wide {
    Wide {
        f000: "value of field 0 here".to_string(),
        f008: "value of field 8 here".to_string(),
        f016: "value of field 16 here".to_string(),
        f024: "value of field 24 here".to_string(),
        f032: "value of field 32 here".to_string(),
        f040: "value of field 40 here".to_string(),
        f048: "value of field 48 here".to_string(),
        f056: "value of field 56 here".to_string(),
        f064: "value of field 64 here".to_string(),
        f072: "value of field 72 here".to_string(),
        f080: "value of field 80 here".to_string(),
        f088: "value of field 88 here".to_string(),
        f096: "value of field 96 here".to_string(),
        f104: "value of field 104 here".to_string(),
        f112: "value of field 112 here".to_string(),
        f120: "value of field 120 here".to_string(),
        f128: "value of field 128 here".to_string(),
        f136: "value of field 136 here".to_string(),
        f144: "value of field 144 here".to_string(),
        f152: "value of field 152 here".to_string(),
        ..Wide::default()
    }
}
